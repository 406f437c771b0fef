//! What the watcher knows about each followed file, and which files a batch of filesystem events
//! makes worth re-reading. No threads and no notify types here, so that the decisions can be
//! tested on their own.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use super::{WatchEvent, content_hash};

/// The last thing reported for a file, so that only differences reach the sink.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Seen {
    /// Nothing reported yet: the first read is always reported, whatever it finds.
    Unknown,
    Absent,
    Failed(String),
    Present(u64),
}

/// The outcome of reading a file once.
#[derive(Debug)]
pub(super) enum Read {
    Content(Vec<u8>),
    NotFound,
    Failed(String),
}

impl Read {
    pub(super) fn file(path: &Path) -> Read {
        match std::fs::read(path) {
            Ok(bytes) => Read::Content(bytes),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Read::NotFound,
            Err(e) => Read::Failed(e.to_string()),
        }
    }
}

impl Seen {
    /// Records a read and says what to report, if anything.
    pub(super) fn observe(&mut self, read: Read, report_as: &Path) -> Option<WatchEvent> {
        match read {
            Read::Content(content) => {
                let hash = content_hash(&content);
                if *self == Seen::Present(hash) {
                    return None;
                }
                *self = Seen::Present(hash);
                Some(WatchEvent::Changed {
                    path: report_as.to_path_buf(),
                    content,
                    hash,
                })
            }
            Read::NotFound => {
                if *self == Seen::Absent {
                    return None;
                }
                *self = Seen::Absent;
                Some(WatchEvent::Missing {
                    path: report_as.to_path_buf(),
                })
            }
            Read::Failed(message) => {
                if matches!(self, Seen::Failed(m) if *m == message) {
                    return None;
                }
                *self = Seen::Failed(message.clone());
                Some(WatchEvent::Error {
                    path: Some(report_as.to_path_buf()),
                    message,
                })
            }
        }
    }
}

/// A file followed for itself (a manifest).
#[derive(Debug)]
pub(super) struct FileTarget {
    /// The path as the caller gave it; events name the file this way.
    pub given: PathBuf,
    /// The forms in which filesystem events name it: the canonical parent joined with the file
    /// name, and, for a symlink, the file it resolves to.
    pub keys: Vec<PathBuf>,
    pub seen: Seen,
}

/// A folder whose files (those with one of `extensions`, directly in it) are followed.
#[derive(Debug)]
pub(super) struct DirTarget {
    pub given: PathBuf,
    /// The canonical folder path, which is how events inside it are named.
    pub key: PathBuf,
    pub extensions: Vec<String>,
}

impl DirTarget {
    pub(super) fn wants(&self, file: &Path) -> bool {
        if file.parent() != Some(self.key.as_path()) {
            return false;
        }
        self.extensions.is_empty()
            || file
                .extension()
                .and_then(|e| e.to_str())
                .is_some_and(|e| self.extensions.iter().any(|x| x == e))
    }
}

/// A file found in a followed folder.
#[derive(Debug)]
pub(super) struct Child {
    /// The `given` of the folder it was found in.
    pub dir: PathBuf,
    pub report_as: PathBuf,
    pub seen: Seen,
}

/// What a batch of events asks to re-read.
#[derive(Debug, Default, PartialEq, Eq)]
pub(super) struct Plan {
    /// File targets, by `given`.
    pub files: BTreeSet<PathBuf>,
    /// Folder targets to list again (by `given`): the folder itself was created, removed or
    /// replaced, or the backend lost track of events.
    pub dirs: BTreeSet<PathBuf>,
    /// Folder files, by key.
    pub children: BTreeSet<PathBuf>,
}

impl Plan {
    pub(super) fn is_empty(&self) -> bool {
        self.files.is_empty() && self.dirs.is_empty() && self.children.is_empty()
    }
}

#[derive(Debug, Default)]
pub(super) struct State {
    pub files: BTreeMap<PathBuf, FileTarget>,
    pub dirs: BTreeMap<PathBuf, DirTarget>,
    pub children: BTreeMap<PathBuf, Child>,
}

impl State {
    /// Re-read everything: the backend says it dropped events.
    pub(super) fn plan_all(&self) -> Plan {
        Plan {
            files: self.files.keys().cloned().collect(),
            dirs: self.dirs.keys().cloned().collect(),
            children: BTreeSet::new(),
        }
    }

    /// The files and folders named by one event's paths. Which kind of event it was does not
    /// matter: editors save in too many ways (write in place, truncate and write, rename a
    /// temporary file over, delete and recreate) for the kind to be trusted, and re-reading a
    /// file that did not change costs one read and a hash.
    pub(super) fn plan_paths(&self, paths: &[PathBuf], plan: &mut Plan) {
        for path in paths {
            for (given, target) in &self.files {
                if target.keys.iter().any(|k| k == path) {
                    plan.files.insert(given.clone());
                }
            }
            for (given, dir) in &self.dirs {
                if dir.key == *path {
                    plan.dirs.insert(given.clone());
                } else if dir.wants(path) {
                    plan.children.insert(path.clone());
                }
            }
        }
    }

    /// The folders the backend must watch: the parent of every followed file and folder (a
    /// watch on a file or folder itself dies when it is replaced), and each followed folder that
    /// exists, for the files in it.
    pub(super) fn watch_dirs(&self, exists: impl Fn(&Path) -> bool) -> BTreeSet<PathBuf> {
        let mut out = BTreeSet::new();
        for target in self.files.values() {
            out.extend(
                target
                    .keys
                    .iter()
                    .filter_map(|k| k.parent())
                    .map(Path::to_path_buf),
            );
        }
        for dir in self.dirs.values() {
            if let Some(parent) = dir.key.parent() {
                out.insert(parent.to_path_buf());
            }
            if exists(&dir.key) {
                out.insert(dir.key.clone());
            }
        }
        out
    }

    /// The caller's form of a path an event or error names, when it is one we follow.
    pub(super) fn report_as(&self, path: &Path) -> Option<PathBuf> {
        if let Some(t) = self
            .files
            .values()
            .find(|t| t.keys.iter().any(|k| k == path))
        {
            return Some(t.given.clone());
        }
        if let Some(c) = self.children.get(path) {
            return Some(c.report_as.clone());
        }
        self.dirs.values().find_map(|d| {
            if d.key == path {
                Some(d.given.clone())
            } else {
                path.strip_prefix(&d.key)
                    .ok()
                    .map(|rest| d.given.join(rest))
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn changed(path: &str, content: &str) -> WatchEvent {
        WatchEvent::Changed {
            path: path.into(),
            content: content.as_bytes().to_vec(),
            hash: content_hash(content.as_bytes()),
        }
    }

    fn content(s: &str) -> Read {
        Read::Content(s.as_bytes().to_vec())
    }

    #[test]
    fn the_first_read_is_always_reported() {
        let p = Path::new("m.json");
        assert_eq!(
            Seen::Unknown.observe(content("{}"), p),
            Some(changed("m.json", "{}"))
        );
        assert_eq!(
            Seen::Unknown.observe(Read::NotFound, p),
            Some(WatchEvent::Missing { path: p.into() })
        );
        assert!(matches!(
            Seen::Unknown.observe(Read::Failed("denied".into()), p),
            Some(WatchEvent::Error { .. })
        ));
    }

    #[test]
    fn identical_bytes_are_not_reported_again() {
        let p = Path::new("m.json");
        let mut seen = Seen::Unknown;
        assert!(seen.observe(content("{}"), p).is_some());
        assert_eq!(seen.observe(content("{}"), p), None);
        assert_eq!(
            seen.observe(content("{ }"), p),
            Some(changed("m.json", "{ }"))
        );
    }

    #[test]
    fn a_recreated_file_is_reported_even_with_its_old_bytes() {
        let p = Path::new("m.json");
        let mut seen = Seen::Unknown;
        seen.observe(content("{}"), p);
        assert_eq!(
            seen.observe(Read::NotFound, p),
            Some(WatchEvent::Missing { path: p.into() })
        );
        assert_eq!(seen.observe(Read::NotFound, p), None);
        assert_eq!(
            seen.observe(content("{}"), p),
            Some(changed("m.json", "{}"))
        );
    }

    #[test]
    fn a_repeated_error_is_reported_once_and_recovery_always() {
        let p = Path::new("m.json");
        let mut seen = Seen::Unknown;
        seen.observe(content("{}"), p);
        assert!(seen.observe(Read::Failed("denied".into()), p).is_some());
        assert_eq!(seen.observe(Read::Failed("denied".into()), p), None);
        assert!(seen.observe(Read::Failed("busy".into()), p).is_some());
        // The consumer is showing the error: the same bytes as before the error must clear it.
        assert_eq!(
            seen.observe(content("{}"), p),
            Some(changed("m.json", "{}"))
        );
    }

    fn state() -> State {
        let mut state = State::default();
        state.files.insert(
            "m.json".into(),
            FileTarget {
                given: "m.json".into(),
                keys: vec!["/w/m.json".into(), "/real/m.json".into()],
                seen: Seen::Unknown,
            },
        );
        state.dirs.insert(
            "m.payloads".into(),
            DirTarget {
                given: "m.payloads".into(),
                key: "/w/m.payloads".into(),
                extensions: vec!["json".into(), "jsonl".into()],
            },
        );
        state
    }

    fn plan(state: &State, paths: &[&str]) -> Plan {
        let paths: Vec<PathBuf> = paths.iter().map(PathBuf::from).collect();
        let mut plan = Plan::default();
        state.plan_paths(&paths, &mut plan);
        plan
    }

    #[test]
    fn events_on_a_file_or_its_symlink_target_re_read_it() {
        let s = state();
        assert_eq!(
            plan(&s, &["/w/m.json"]).files,
            BTreeSet::from(["m.json".into()])
        );
        assert_eq!(
            plan(&s, &["/real/m.json"]).files,
            BTreeSet::from(["m.json".into()])
        );
        // A rename over the file names the temporary file and the file.
        let p = plan(&s, &["/w/.m.json.tmp123", "/w/m.json"]);
        assert_eq!(p.files, BTreeSet::from(["m.json".into()]));
        assert!(p.children.is_empty() && p.dirs.is_empty());
    }

    #[test]
    fn editor_and_unrelated_files_are_ignored() {
        let s = state();
        for path in [
            "/w/.m.json.swp",
            "/w/4913",
            "/w/m.json~",
            "/w/m.json___jb_tmp___",
            "/w/other.json",
            "/w/m.payloads/a.json.swp",
            "/w/m.payloads/sub/a.json",
        ] {
            assert!(plan(&s, &[path]).is_empty(), "{path}");
        }
    }

    #[test]
    fn folder_files_with_a_wanted_extension_are_re_read() {
        let s = state();
        assert_eq!(
            plan(&s, &["/w/m.payloads/a.json", "/w/m.payloads/b.jsonl"]).children,
            BTreeSet::from([
                "/w/m.payloads/a.json".into(),
                "/w/m.payloads/b.jsonl".into()
            ])
        );
    }

    #[test]
    fn an_event_on_the_folder_itself_lists_it_again() {
        let s = state();
        assert_eq!(
            plan(&s, &["/w/m.payloads"]).dirs,
            BTreeSet::from(["m.payloads".into()])
        );
    }

    #[test]
    fn parents_are_watched_and_folders_only_while_they_exist() {
        let s = state();
        assert_eq!(
            s.watch_dirs(|_| false),
            BTreeSet::from(["/w".into(), "/real".into()])
        );
        assert_eq!(
            s.watch_dirs(|_| true),
            BTreeSet::from(["/w".into(), "/real".into(), "/w/m.payloads".into()])
        );
    }

    #[test]
    fn paths_are_reported_in_the_callers_form() {
        let s = state();
        assert_eq!(
            s.report_as(Path::new("/real/m.json")),
            Some("m.json".into())
        );
        assert_eq!(
            s.report_as(Path::new("/w/m.payloads/a.json")),
            Some("m.payloads/a.json".into())
        );
        assert_eq!(s.report_as(Path::new("/elsewhere")), None);
    }
}
