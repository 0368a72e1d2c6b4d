"""Random forest: 300 trees (random_state=0, n_jobs=1) on the dense features
(median-imputed numbers, one-hot categories, TF-IDF+SVD text, image pixels).
At most 50,000 training rows (a seeded sample) to bound the run time."""
import common
from sklearn.ensemble import RandomForestClassifier, RandomForestRegressor

data = common.load(max_rows=50_000)
X, X_test = data.matrices()


def model(problem):
    forest = RandomForestClassifier if problem.classify else RandomForestRegressor
    return forest(n_estimators=300, random_state=0, n_jobs=1)


data.submit(model, X, X_test)
