//! Rows whose inputs are files (images, audio clips): which folders hold
//! them, which file is a row's, and, for competitions that ship no
//! training table, the rows themselves with labels read from folders or
//! names ([`LabelSource`]).

use crate::detect::base;
use crate::error::{Error, Result};
use crate::files::Files;
use crate::options::LabelSource;
use sandmle_core::Modality;
use std::collections::{BTreeMap, BTreeSet};

/// The modality a file's extension says, if it is an image or a clip.
pub(crate) fn media_kind(rel: &str) -> Option<Modality> {
    let ext = base(rel).rsplit_once('.')?.1.to_ascii_lowercase();
    match ext.as_str() {
        "png" | "jpg" | "jpeg" | "tif" | "tiff" => Some(Modality::Image),
        "wav" | "aif" | "aiff" | "aifc" => Some(Modality::Audio),
        _ => None,
    }
}

/// A file's name without its last extension (`cat.1.jpg` → `cat.1`).
pub(crate) fn without_ext(name: &str) -> &str {
    name.rsplit_once('.').map_or(name, |(s, _)| s)
}

/// The last extension with its dot (`.jpg`), or nothing.
pub(crate) fn ext(name: &str) -> &str {
    name.rfind('.').map_or("", |i| &name[i..])
}

/// The folders of `public/` holding the rows' files.
#[derive(Debug, Clone)]
pub(crate) struct MediaDirs {
    pub modality: Modality,
    pub train: Vec<String>,
    pub test: Vec<String>,
}

/// Finds the media folders: the caller's, or the top folders of
/// `public/` holding images or clips, those named like `train` for the
/// training rows and like `test` for the test rows (others for both).
pub(crate) fn media_dirs(files: &Files, given: &[String]) -> Result<Option<MediaDirs>> {
    let mut kinds = BTreeSet::new();
    let mut tops = BTreeSet::new();
    for rel in files.under("public") {
        let Some(kind) = media_kind(rel) else { continue };
        let mut parts = rel.split('/');
        let (_, top, rest) = (parts.next(), parts.next(), parts.next());
        if let (Some(top), Some(_)) = (top, rest) {
            kinds.insert(kind);
            tops.insert(format!("public/{top}"));
        }
    }
    let modality = match kinds.into_iter().collect::<Vec<_>>().as_slice() {
        [] => return Ok(None),
        [one] => *one,
        _ => {
            return Err(Error::Layout {
                path: files.prepared().join("public"),
                expected: "row files of one kind (images or audio clips), not both".into(),
            });
        }
    };
    if !given.is_empty() {
        if let Some(bad) = given.iter().find(|d| d.trim_matches('/').is_empty() || d.split('/').any(|p| p == "..")) {
            return Err(Error::Options { reason: format!("--files `{bad}`: a folder of `public/` is expected") });
        }
        let dirs: Vec<String> = given.iter().map(|d| format!("public/{}", d.trim_matches('/'))).collect();
        if let Some(missing) = dirs.iter().find(|d| files.under(d).next().is_none()) {
            return Err(Error::Options { reason: format!("--files: no folder {missing} (or it is empty)") });
        }
        return Ok(Some(MediaDirs { modality, train: dirs.clone(), test: dirs }));
    }
    let named = |word: &str, other: &str| -> Vec<String> {
        tops.iter()
            .filter(|t| {
                let name = base(t).to_ascii_lowercase();
                name.contains(word) || !name.contains(other)
            })
            .cloned()
            .collect()
    };
    Ok(Some(MediaDirs { modality, train: named("train", "test"), test: named("test", "train") }))
}

/// The media files below some folders, by name and by name without its
/// extension.
#[derive(Debug, Default)]
pub(crate) struct Index {
    by_name: BTreeMap<String, Vec<String>>,
    by_stem: BTreeMap<String, Vec<String>>,
}

impl Index {
    pub(crate) fn new(files: &Files, dirs: &[String]) -> Index {
        let mut index = Index::default();
        for dir in dirs {
            for rel in files.under(dir).filter(|r| media_kind(r).is_some()) {
                let name = base(rel);
                index.by_name.entry(name.to_owned()).or_default().push(rel.to_owned());
                index.by_stem.entry(without_ext(name).to_owned()).or_default().push(rel.to_owned());
            }
        }
        index
    }

    /// The file of the row with this id (named `<id>` or `<id>.<ext>`),
    /// and whether the id carries the extension.
    pub(crate) fn find(&self, files: &Files, id: &str) -> Result<Option<(String, bool)>> {
        let (hits, named) = match self.by_name.get(id) {
            Some(hits) => (hits, true),
            None => match self.by_stem.get(id) {
                Some(hits) => (hits, false),
                None => return Ok(None),
            },
        };
        match hits.as_slice() {
            [one] => Ok(Some((one.clone(), named))),
            several => Err(Error::Layout {
                path: files.prepared().join(&several[0]),
                expected: format!(
                    "one file for row `{id}`, not {} ({}); name the folder with --files",
                    several.len(),
                    several.join(", ")
                ),
            }),
        }
    }
}

/// A training row made from a file.
#[derive(Debug, Clone)]
pub(crate) struct FileRow {
    /// The row's id, with the file's extension.
    pub id: String,
    /// The file.
    pub rel: String,
    /// Its label, as read.
    pub label: String,
}

/// The label `source` reads from a file at `rel` (below its folder).
fn label_of(source: LabelSource, rel: &str) -> Option<&str> {
    let name = base(rel);
    match source {
        LabelSource::Folder => rel.rsplit('/').nth(1),
        LabelSource::NamePrefix => name.split_once('.').filter(|(_, rest)| rest.contains('.')).map(|(p, _)| p),
        LabelSource::NameSuffix => without_ext(name).rsplit_once('_').map(|(_, s)| s),
    }
    .filter(|l| !l.is_empty())
}

/// The label source that reads a label from every file, with between 2
/// and 1,000 distinct labels (fewer than the files), tried in the order
/// folder, name prefix, name suffix.
fn detect(rels: &[&str]) -> Option<LabelSource> {
    [LabelSource::Folder, LabelSource::NamePrefix, LabelSource::NameSuffix].into_iter().find(|&source| {
        let labels: Option<BTreeSet<&str>> = rels.iter().map(|r| label_of(source, r)).collect();
        labels.is_some_and(|l| (2..=1000).contains(&l.len()) && l.len() < rels.len())
    })
}

/// One row per media file below `dirs`, labelled by `source` (detected
/// when `None`). Ids are file names; where two files share a name (the
/// same clip name under two label folders) ids are the paths below the
/// folders' common part, `/` written `_`.
pub(crate) fn rows_from_files(
    files: &Files,
    dirs: &[String],
    source: Option<LabelSource>,
) -> Result<(Vec<FileRow>, LabelSource)> {
    let mut found: Vec<(&str, &str)> = Vec::new();
    for dir in dirs {
        for rel in files.under(dir).filter(|r| media_kind(r).is_some()) {
            let below = rel.strip_prefix(dir.as_str()).and_then(|b| b.strip_prefix('/')).unwrap_or(rel);
            // A folder shared by both splits: its test part holds no
            // training row (and `test` is no label).
            if below.split('/').rev().skip(1).any(|part| part.to_ascii_lowercase().contains("test")) {
                continue;
            }
            found.push((rel, below));
        }
    }
    let where_ = || files.prepared().join(dirs.first().map_or("public", String::as_str));
    if found.is_empty() {
        return Err(Error::Layout { path: where_(), expected: "training images or clips".into() });
    }
    let below: Vec<&str> = found.iter().map(|(_, b)| *b).collect();
    let source = match source {
        Some(s) => s,
        None => detect(&below).ok_or_else(|| Error::Options {
            reason: format!(
                "the training files in {} carry no labels found in their folders or names; give a training table (--train, --labels) or --label-source",
                where_().display()
            ),
        })?,
    };
    let mut rows = Vec::with_capacity(found.len());
    for (rel, below) in &found {
        let label = label_of(source, below).ok_or_else(|| Error::Layout {
            path: files.prepared().join(rel),
            expected: format!("a label in its {}", describe(source)),
        })?;
        rows.push(FileRow { id: base(rel).to_owned(), rel: (*rel).to_owned(), label: label.to_owned() });
    }
    let names: BTreeSet<&str> = rows.iter().map(|r| r.id.as_str()).collect();
    if names.len() < rows.len() {
        let common = common_folders(&below);
        for (row, below) in rows.iter_mut().zip(&below) {
            row.id = below[common..].replace('/', "_");
        }
    }
    Ok((rows, source))
}

/// How many leading bytes of every path are folders they all share.
fn common_folders(paths: &[&str]) -> usize {
    let Some(first) = paths.first() else { return 0 };
    let mut len = first.rfind('/').map_or(0, |i| i + 1);
    for p in paths {
        while len > 0 && !(p.len() >= len && p.as_bytes()[..len] == first.as_bytes()[..len]) {
            len = first[..len - 1].rfind('/').map_or(0, |i| i + 1);
        }
    }
    len
}

/// Words for a label source, for messages.
pub(crate) fn describe(source: LabelSource) -> &'static str {
    match source {
        LabelSource::Folder => "folder's name",
        LabelSource::NamePrefix => "name before the first dot",
        LabelSource::NameSuffix => "name after the last underscore",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn labels_come_from_folders_prefixes_or_suffixes() {
        assert_eq!(detect(&["yes/a.wav", "no/a.wav", "no/b.wav"]), Some(LabelSource::Folder));
        assert_eq!(detect(&["cat.1.jpg", "dog.2.jpg", "cat.3.jpg"]), Some(LabelSource::NamePrefix));
        assert_eq!(detect(&["x_TRAIN1_0.aif", "x_TRAIN2_1.aif", "x_TRAIN3_1.aif"]), Some(LabelSource::NameSuffix));
        assert_eq!(detect(&["1.jpg", "2.jpg"]), None, "no labels in plain names");
    }

    #[test]
    fn common_folders_stop_at_a_folder_boundary() {
        assert_eq!(common_folders(&["audio/yes/a.wav", "audio/no/a.wav"]), "audio/".len());
        assert_eq!(common_folders(&["ab/x.wav", "ac/x.wav"]), 0);
        assert_eq!(common_folders(&["a.wav"]), 0);
    }
}
