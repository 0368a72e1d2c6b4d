//! JSON values to plain Python objects and back: `dict`, `list`, `str`,
//! `int`, `float`, `bool` and `None`, so every return value pickles (and
//! crosses Ray workers) without this module.

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDict, PyFloat, PyInt, PyList, PyString, PyTuple};
use serde_json::Value;

/// How deep a Python argument may nest before it is refused.
const MAX_DEPTH: usize = 128;

/// A JSON value as a plain Python object.
///
/// # Errors
/// Python's own (out of memory).
pub fn to_py<'py>(py: Python<'py>, value: &Value) -> PyResult<Bound<'py, PyAny>> {
    Ok(match value {
        Value::Null => py.None().into_bound(py),
        Value::Bool(b) => PyBool::new(py, *b).to_owned().into_any(),
        Value::Number(n) => match (n.as_i64(), n.as_u64()) {
            (Some(i), _) => i.into_pyobject(py)?.into_any(),
            (None, Some(u)) => u.into_pyobject(py)?.into_any(),
            _ => PyFloat::new(py, n.as_f64().unwrap_or(f64::NAN)).into_any(),
        },
        Value::String(s) => PyString::new(py, s).into_any(),
        Value::Array(items) => {
            let list = PyList::empty(py);
            for item in items {
                list.append(to_py(py, item)?)?;
            }
            list.into_any()
        }
        Value::Object(map) => {
            let dict = PyDict::new(py);
            for (k, v) in map {
                dict.set_item(k, to_py(py, v)?)?;
            }
            dict.into_any()
        }
    })
}

/// A serialisable Rust value as a plain Python object.
///
/// # Errors
/// A value that does not serialise to JSON (none of this crate's types).
pub fn serialize_to_py<'py, T: serde::Serialize>(py: Python<'py>, value: &T) -> PyResult<Bound<'py, PyAny>> {
    let v = serde_json::to_value(value).map_err(|e| crate::errors::system(format!("JSON: {e}")))?;
    to_py(py, &v)
}

/// A Python object (dicts with string keys, lists, tuples, strings,
/// numbers, booleans, `None`) as a JSON value.
///
/// # Errors
/// `ValueError` for anything else, a non-finite float, or nesting deeper
/// than 128 levels.
pub fn from_py(obj: &Bound<'_, PyAny>) -> PyResult<Value> {
    from_py_at(obj, 0)
}

fn from_py_at(obj: &Bound<'_, PyAny>, depth: usize) -> PyResult<Value> {
    if depth > MAX_DEPTH {
        return Err(PyValueError::new_err("a JSON argument nests too deeply"));
    }
    if obj.is_none() {
        return Ok(Value::Null);
    }
    if let Ok(b) = obj.cast::<PyBool>() {
        return Ok(Value::Bool(b.is_true()));
    }
    if obj.cast::<PyInt>().is_ok() {
        if let Ok(i) = obj.extract::<i64>() {
            return Ok(Value::from(i));
        }
        if let Ok(u) = obj.extract::<u64>() {
            return Ok(Value::from(u));
        }
        return Err(PyValueError::new_err("an integer argument is out of the 64-bit range"));
    }
    if let Ok(f) = obj.cast::<PyFloat>() {
        let x = f.value();
        return serde_json::Number::from_f64(x)
            .map(Value::Number)
            .ok_or_else(|| PyValueError::new_err("a float argument is not finite"));
    }
    if let Ok(s) = obj.cast::<PyString>() {
        return Ok(Value::String(s.to_cow()?.into_owned()));
    }
    if let Ok(d) = obj.cast::<PyDict>() {
        let mut map = serde_json::Map::new();
        for (k, v) in d.iter() {
            let key = k.cast::<PyString>().map_err(|_| PyValueError::new_err("JSON object keys must be strings"))?;
            map.insert(key.to_cow()?.into_owned(), from_py_at(&v, depth + 1)?);
        }
        return Ok(Value::Object(map));
    }
    if let Ok(l) = obj.cast::<PyList>() {
        return l.iter().map(|v| from_py_at(&v, depth + 1)).collect::<PyResult<Vec<_>>>().map(Value::Array);
    }
    if let Ok(t) = obj.cast::<PyTuple>() {
        return t.iter().map(|v| from_py_at(&v, depth + 1)).collect::<PyResult<Vec<_>>>().map(Value::Array);
    }
    let type_name = obj.get_type().name().map_or_else(|_| "?".to_owned(), |n| n.to_string());
    Err(PyValueError::new_err(format!("cannot pass a `{type_name}` as JSON")))
}
