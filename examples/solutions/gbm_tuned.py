"""Histogram gradient boosting tuned by 3-fold CV on the train set over a
grid of 8 settings: learning_rate x max_leaf_nodes x l2_regularization,
scored by log loss (probabilities), accuracy (labels) or RMSE (values).
At most 50,000 training rows (a seeded sample) to bound the run time."""
import common
from sklearn.ensemble import HistGradientBoostingClassifier, HistGradientBoostingRegressor
from sklearn.model_selection import GridSearchCV

GRID = {"learning_rate": [0.05, 0.1], "max_leaf_nodes": [15, 31], "l2_regularization": [0.0, 1.0]}

data = common.load(max_rows=50_000)
X, X_test = data.matrices()


def model(problem):
    gbm = HistGradientBoostingClassifier if problem.classify else HistGradientBoostingRegressor
    return GridSearchCV(gbm(random_state=0), GRID, cv=problem.cv(3), scoring=problem.scoring, n_jobs=1)


data.submit(model, X, X_test)
