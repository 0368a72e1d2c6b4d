"""Histogram gradient boosting tuned by 3-fold CV on the train set over a
grid of 8 settings: learning_rate x max_leaf_nodes x l2_regularization,
scored by log loss (probabilities), accuracy (labels) or RMSE (values).
Early stopping (on a 10% stratified hold-out) when there are 1,000 training
rows and 20 of each class, and at most 50,000 training rows (a seeded
sample), to bound the run time."""
import common
import pandas as pd
from sklearn.ensemble import HistGradientBoostingClassifier, HistGradientBoostingRegressor
from sklearn.model_selection import GridSearchCV

GRID = {"learning_rate": [0.05, 0.1], "max_leaf_nodes": [15, 31], "l2_regularization": [0.0, 1.0]}

data = common.load(max_rows=50_000)
X, X_test = data.matrices()


def model(problem):
    gbm = HistGradientBoostingClassifier if problem.classify else HistGradientBoostingRegressor
    enough = len(problem.y) >= 1000 and (not problem.classify or pd.Series(problem.y).value_counts().min() >= 20)
    base = gbm(early_stopping=enough, random_state=0)
    return GridSearchCV(base, GRID, cv=problem.cv(3), scoring=problem.scoring, n_jobs=1)


data.submit(model, X, X_test)
