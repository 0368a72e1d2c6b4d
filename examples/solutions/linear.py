"""Linear model with its regularization chosen by CV: LogisticRegressionCV
(10 values of C, 5-fold, scored by log loss or accuracy) for classes,
RidgeCV (13 alphas, leave-one-out) for values. Standardized dense features;
on text tasks the sparse TF-IDF (word 1-2 grams) directly.
At most 100,000 training rows (a seeded sample) to bound the run time."""
import common
import numpy as np
from sklearn.linear_model import LogisticRegressionCV, RidgeCV

data = common.load(max_rows=100_000)
X, X_test = data.matrices(sparse=True) if data.has_text else data.matrices(scale=True)


def model(problem):
    if problem.classify:
        return LogisticRegressionCV(Cs=10, cv=problem.cv(5), scoring=problem.scoring, max_iter=2000)
    return RidgeCV(alphas=np.logspace(-3, 3, 13))


data.submit(model, X, X_test)
