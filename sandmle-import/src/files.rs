//! [`Files`]: every file of a prepared competition, on disk or inside the
//! archives it ships, under one tree of paths relative to `prepared/`.
//!
//! MLE-bench's `prepare.py` often leaves Kaggle's archives as they were
//! (`public/train.zip`, `public/test.7z`, `public/train_labels.csv.zip`).
//! Each ZIP and 7z archive of `prepared/` is opened, and its entries take
//! the archive's folder as theirs: `public/train.zip` holding
//! `train/cat.1.jpg` gives `public/train/cat.1.jpg`, and a one-file
//! `public/train_labels.csv.zip` gives `public/train_labels.csv`. An
//! archive of several files with no folder of their own puts them in a
//! folder named after it (`public/test.zip` of `1.jpg`, `2.jpg` gives
//! `public/test/1.jpg`). A file already on disk wins over an archive entry
//! of the same path (a competition that ships `train.zip` and its
//! unpacked `train/`).
//!
//! Links: a link on disk is followed only to a file inside the
//! competition; an archive entry that is a link, or whose name climbs out
//! of its folder (`../x`, `/etc/x`), is refused. macOS's `__MACOSX/` and
//! `.DS_Store` entries are skipped. Budgets bound what archives expand to
//! ([`Budget`]).

use crate::error::{Error, Result};
use std::collections::BTreeMap;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::sync::Arc;

fn io(path: impl Into<PathBuf>, source: std::io::Error) -> sandmle_core::Error {
    sandmle_core::Error::Io { path: path.into(), source }
}

/// What opening a competition's archives may cost.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Budget {
    /// Files in all (on disk and in archives).
    pub max_files: usize,
    /// Bytes all archive entries expand to together.
    pub max_archive_bytes: u64,
    /// Bytes one archive entry expands to.
    pub max_entry_bytes: u64,
    /// Folder depth below `prepared/`.
    pub max_depth: usize,
}

impl Default for Budget {
    /// Two million files, 16 GiB expanded in all, 2 GiB an entry, 16
    /// folders deep.
    fn default() -> Self {
        Budget { max_files: 2_000_000, max_archive_bytes: 16 << 30, max_entry_bytes: 2 << 30, max_depth: 16 }
    }
}

/// Where a file's bytes are.
#[derive(Debug, Clone)]
enum Source {
    /// A regular file on disk.
    Disk(PathBuf),
    /// An archive entry, already expanded; the archive's path.
    Archived(Arc<Vec<u8>>, String),
}

/// Every file of a prepared competition (see the module docs).
#[derive(Debug, Clone)]
pub struct Files {
    prepared: PathBuf,
    budget: Budget,
    entries: BTreeMap<String, Source>,
    archives: Vec<String>,
}

/// The archive kinds opened.
fn archive_kind(path: &str) -> Option<&'static str> {
    let lower = path.to_ascii_lowercase();
    if lower.ends_with(".zip") {
        Some("zip")
    } else if lower.ends_with(".7z") {
        Some("7z")
    } else {
        None
    }
}

fn skipped(name: &str) -> bool {
    name.split('/').any(|part| part == "__MACOSX" || part == ".DS_Store" || part == "Thumbs.db")
}

impl Files {
    /// Lists `competition/prepared/` and opens its archives.
    ///
    /// # Errors
    /// [`Error::Layout`] if there is no `prepared/public/`; [`Error::File`]
    /// naming a link out of the competition, a corrupt or hostile archive,
    /// or a budget exceeded; [`Error::Core`] for I/O.
    pub fn scan(competition: &Path, budget: Budget) -> Result<Files> {
        let prepared = competition.join("prepared");
        if !prepared.join("public").is_dir() {
            return Err(Error::Layout {
                path: prepared.join("public"),
                expected: "MLE-bench's prepared layout: `prepared/public/` (what agents see) and `prepared/private/` (the answers)".into(),
            });
        }
        let root = std::fs::canonicalize(competition).map_err(|e| io(competition, e))?;
        // `prepared/` itself is held to the rule every link below it is.
        let real = std::fs::canonicalize(&prepared).map_err(|e| io(&prepared, e))?;
        if !real.starts_with(&root) {
            return Err(Error::File {
                file: "prepared".into(),
                reason: format!("a link out of the competition (to {}); copy the folder in instead", real.display()),
            });
        }
        let mut files = Files { prepared: prepared.clone(), budget, entries: BTreeMap::new(), archives: Vec::new() };
        files.walk(&prepared, "", &root, budget, 0)?;
        let archives: Vec<String> = files.entries.keys().filter(|p| archive_kind(p).is_some()).cloned().collect();
        let mut expanded = 0u64;
        for archive in archives {
            files.open_archive(&archive, budget, &mut expanded)?;
        }
        Ok(files)
    }

    fn walk(&mut self, dir: &Path, rel: &str, root: &Path, budget: Budget, depth: usize) -> Result<()> {
        if depth > budget.max_depth {
            return Err(Error::File {
                file: rel.into(),
                reason: format!("folders nested over {} deep", budget.max_depth),
            });
        }
        let mut names: Vec<(String, std::fs::FileType)> = Vec::new();
        for entry in std::fs::read_dir(dir).map_err(|e| io(dir, e))? {
            let entry = entry.map_err(|e| io(dir, e))?;
            let kind = entry.file_type().map_err(|e| io(entry.path(), e))?;
            names.push((entry.file_name().to_string_lossy().into_owned(), kind));
        }
        names.sort_by(|a, b| a.0.cmp(&b.0));
        for (name, kind) in names {
            let path = dir.join(&name);
            let rel = if rel.is_empty() { name.clone() } else { format!("{rel}/{name}") };
            if skipped(&rel) {
                continue;
            }
            if kind.is_dir() {
                self.walk(&path, &rel, root, budget, depth + 1)?;
                continue;
            }
            if kind.is_symlink() {
                // Followed only to a regular file inside the competition.
                let real = std::fs::canonicalize(&path).map_err(|e| io(&path, e))?;
                if !real.starts_with(root) {
                    return Err(Error::File {
                        file: rel,
                        reason: format!(
                            "a link out of the competition (to {}); copy the file in instead",
                            real.display()
                        ),
                    });
                }
                if real.is_dir() {
                    return Err(Error::File {
                        file: rel,
                        reason: "a link to a folder; copy the folder in instead (its files would be left out)".into(),
                    });
                }
                if !real.is_file() {
                    continue;
                }
            } else if !kind.is_file() {
                continue;
            }
            if self.entries.len() >= budget.max_files {
                return Err(Error::File { file: rel, reason: format!("more than {} files", budget.max_files) });
            }
            self.entries.insert(rel, Source::Disk(path));
        }
        Ok(())
    }

    /// Expands one archive's entries into the tree.
    fn open_archive(&mut self, archive: &str, budget: Budget, expanded: &mut u64) -> Result<()> {
        let bytes = self.read(archive)?;
        let bad = |reason: String| Error::File { file: archive.to_owned(), reason };
        let mut entries: Vec<(String, Vec<u8>)> = Vec::new();
        let mut take = |name: &str, size: u64, reader: &mut dyn Read| -> Result<()> {
            if size > budget.max_entry_bytes || expanded.saturating_add(size) > budget.max_archive_bytes {
                return Err(bad(format!(
                    "entry `{name}` expands past the budget ({} bytes an entry, {} in all)",
                    budget.max_entry_bytes, budget.max_archive_bytes
                )));
            }
            // A header's size is a claim: the buffer grows with what the
            // entry really holds.
            let mut out = Vec::with_capacity(usize::try_from(size).unwrap_or(0).min(64 << 10));
            // Bounded by the budget whatever the header claims.
            let limit = budget.max_entry_bytes.min(budget.max_archive_bytes - *expanded);
            reader
                .take(limit.saturating_add(1))
                .read_to_end(&mut out)
                .map_err(|e| bad(format!("entry `{name}`: {e}")))?;
            let n = out.len() as u64;
            if n > limit {
                return Err(bad(format!("entry `{name}` expands past the budget")));
            }
            *expanded += n;
            out.shrink_to_fit();
            entries.push((name.to_owned(), out));
            Ok(())
        };
        match archive_kind(archive) {
            Some("zip") => {
                let mut zip = zip::ZipArchive::new(std::io::Cursor::new(bytes.as_ref()))
                    .map_err(|e| bad(format!("not a readable ZIP archive ({e})")))?;
                // Entries sharing their bytes expand to far more than the
                // archive holds (a quine or overlap bomb).
                if zip.has_overlapping_entries().map_err(|e| bad(format!("not a readable ZIP archive ({e})")))? {
                    return Err(bad("entries overlap (one stored stream read as several files)".into()));
                }
                for i in 0..zip.len() {
                    let mut entry = zip.by_index(i).map_err(|e| bad(format!("entry {i}: {e}")))?;
                    if entry.is_dir() {
                        continue;
                    }
                    let raw = entry.name().map(|n| n.into_owned()).unwrap_or_default();
                    if entry.is_symlink() {
                        return Err(bad(format!("entry `{raw}` is a link")));
                    }
                    let Some(name) = entry.enclosed_name().and_then(|p| p.to_str().map(str::to_owned)) else {
                        return Err(bad(format!("entry `{raw}` names a place outside its folder")));
                    };
                    let size = entry.size();
                    take(&name.replace('\\', "/"), size, &mut entry)?;
                }
            }
            _ => {
                let mut reader = sevenz_rust2::ArchiveReader::new(
                    std::io::Cursor::new(bytes.as_ref()),
                    sevenz_rust2::Password::empty(),
                )
                .map_err(|e| bad(format!("not a readable 7z archive ({e})")))?;
                let mut failure: Option<Error> = None;
                reader
                    .for_each_entries(|entry, data| {
                        if entry.is_directory() || !entry.has_stream() {
                            return Ok(true);
                        }
                        let name = entry.name().replace('\\', "/");
                        if name.starts_with('/') || name.split('/').any(|p| p == "..") {
                            failure = Some(bad(format!("entry `{name}` names a place outside its folder")));
                            return Ok(false);
                        }
                        match take(&name, entry.size(), data) {
                            Ok(()) => Ok(true),
                            Err(e) => {
                                failure = Some(e);
                                Ok(false)
                            }
                        }
                    })
                    .map_err(|e| bad(format!("not a readable 7z archive ({e})")))?;
                if let Some(e) = failure {
                    return Err(e);
                }
            }
        }
        let folder = archive.rsplit_once('/').map_or("", |(d, _)| d);
        let stem = archive.rsplit('/').next().unwrap_or(archive);
        let stem = &stem[..stem.rfind('.').unwrap_or(stem.len())];
        entries.retain(|(name, _)| !skipped(name));
        let flat = entries.len() > 1 && entries.iter().all(|(n, _)| !n.contains('/'));
        for (name, data) in entries {
            let mut rel = String::new();
            for part in [folder, if flat { stem } else { "" }, name.as_str()] {
                if !part.is_empty() {
                    if !rel.is_empty() {
                        rel.push('/');
                    }
                    rel.push_str(part);
                }
            }
            if self.entries.contains_key(&rel) {
                continue;
            }
            if self.entries.len() >= budget.max_files {
                return Err(bad(format!("more than {} files", budget.max_files)));
            }
            self.entries.insert(rel, Source::Archived(Arc::new(data), archive.to_owned()));
        }
        self.archives.push(archive.to_owned());
        Ok(())
    }

    /// A file's bytes.
    ///
    /// # Errors
    /// [`Error::Core`] `MissingFile` for a path the tree does not hold;
    /// I/O errors.
    pub fn read(&self, rel: &str) -> Result<Arc<Vec<u8>>> {
        match self.entries.get(rel) {
            Some(Source::Disk(path)) => Ok(Arc::new(sandmle_core::read_regular(path, self.budget.max_entry_bytes)?)),
            Some(Source::Archived(bytes, _)) => Ok(Arc::clone(bytes)),
            None => Err(sandmle_core::Error::MissingFile { path: self.prepared.join(rel) }.into()),
        }
    }

    /// Whether the tree holds a file at `rel`.
    pub fn contains(&self, rel: &str) -> bool {
        self.entries.contains_key(rel)
    }

    /// Every file's path, sorted.
    pub fn paths(&self) -> impl Iterator<Item = &str> {
        self.entries.keys().map(String::as_str)
    }

    /// The files directly or deeply under folder `dir` (`public/train`),
    /// sorted.
    pub fn under<'a>(&'a self, dir: &'a str) -> impl Iterator<Item = &'a str> + 'a {
        let prefix = format!("{}/", dir.trim_end_matches('/'));
        self.entries.range(prefix.clone()..).map(|(k, _)| k.as_str()).take_while(move |k| k.starts_with(&prefix))
    }

    /// Where a file came from, for messages: its path, or
    /// `public/train.zip: train/cat.1.jpg` for an archive entry.
    pub fn origin(&self, rel: &str) -> String {
        match self.entries.get(rel) {
            Some(Source::Archived(_, archive)) => format!("{rel} (from {archive})"),
            _ => rel.to_owned(),
        }
    }

    /// The archives that were opened, in order.
    pub fn archives(&self) -> &[String] {
        &self.archives
    }

    /// The `prepared/` folder.
    pub fn prepared(&self) -> &Path {
        &self.prepared
    }
}
