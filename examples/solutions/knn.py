"""k nearest neighbours, k chosen by 3-fold CV among 3, 5, 11, 21 (those
that fit in a training fold), on standardized dense features (text as 100
SVD components of its TF-IDF).
At most 20,000 training rows (a seeded sample) to bound the run time."""
import common
from sklearn.model_selection import GridSearchCV
from sklearn.neighbors import KNeighborsClassifier, KNeighborsRegressor

data = common.load(max_rows=20_000)
X, X_test = data.matrices(scale=True)


def model(problem):
    cv = problem.cv(3)
    smallest_fold = len(problem.y) * (cv.get_n_splits() - 1) // cv.get_n_splits()
    ks = [k for k in (3, 5, 11, 21) if k <= smallest_fold] or [1]
    knn = KNeighborsClassifier() if problem.classify else KNeighborsRegressor()
    return GridSearchCV(knn, {"n_neighbors": ks}, cv=cv, scoring=problem.scoring, n_jobs=1)


data.submit(model, X, X_test)
