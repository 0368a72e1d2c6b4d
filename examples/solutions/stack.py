"""Stack of a random forest (300 trees), histogram gradient boosting and a
standardized linear model (LogisticRegression / RidgeCV), combined by a
logistic regression / RidgeCV on their 5-fold out-of-fold predictions.
Dense features; at most 20,000 training rows (a seeded sample)."""
import common
import numpy as np
from sklearn.ensemble import (HistGradientBoostingClassifier, HistGradientBoostingRegressor,
                              RandomForestClassifier, RandomForestRegressor,
                              StackingClassifier, StackingRegressor)
from sklearn.linear_model import LogisticRegression, RidgeCV
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

data = common.load(max_rows=20_000)
X, X_test = data.matrices()


def model(problem):
    if problem.classify:
        return StackingClassifier(
            [("forest", RandomForestClassifier(n_estimators=300, random_state=0, n_jobs=1)),
             ("gbm", HistGradientBoostingClassifier(random_state=0)),
             ("linear", make_pipeline(StandardScaler(), LogisticRegression(max_iter=2000)))],
            final_estimator=LogisticRegression(max_iter=2000), cv=problem.cv(5), n_jobs=1)
    return StackingRegressor(
        [("forest", RandomForestRegressor(n_estimators=300, random_state=0, n_jobs=1)),
         ("gbm", HistGradientBoostingRegressor(random_state=0)),
         ("linear", make_pipeline(StandardScaler(), RidgeCV(alphas=np.logspace(-3, 3, 13))))],
        final_estimator=RidgeCV(alphas=np.logspace(-3, 3, 13)), cv=problem.cv(5), n_jobs=1)


data.submit(model, X, X_test)
