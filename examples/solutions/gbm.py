"""Histogram gradient boosting with scikit-learn's defaults (random_state=0)
on the dense features (median-imputed numbers, one-hot categories,
TF-IDF+SVD text, image pixels)."""
import common
from sklearn.ensemble import HistGradientBoostingClassifier, HistGradientBoostingRegressor

data = common.load()
X, X_test = data.matrices()


def model(problem):
    gbm = HistGradientBoostingClassifier if problem.classify else HistGradientBoostingRegressor
    return gbm(random_state=0)


data.submit(model, X, X_test)
