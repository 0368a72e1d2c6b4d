# A code step as an MLE agent writes it: pandas reads the CSV files, a
# scikit-learn logistic regression fits 200 rows, submission.csv is written.
# Prints its own in-process time (imports included) as `program_ms=`.
import time

t0 = time.perf_counter()
import pandas as pd
from sklearn.linear_model import LogisticRegression
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

train, test = pd.read_csv("train.csv"), pd.read_csv("test.csv")
sample = pd.read_csv("sample_submission.csv")
target = [c for c in sample.columns if c != "id"][0]
features = [c for c in test.columns if c != "id"]
model = make_pipeline(StandardScaler(), LogisticRegression(max_iter=1000))
model.fit(train[features], train[target])
sample[target] = model.predict_proba(test[features])[:, 1]
sample.to_csv("submission.csv", index=False)
print(f"program_ms={(time.perf_counter() - t0) * 1000:.1f}")
