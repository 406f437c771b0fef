//! Where a version of a manifest comes from: a file, standard input (`-`), or `REV:PATH` read
//! from the git repository of the current folder (`git show REV:PATH`).

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::manifest::{self, Manifest, ManifestError, ManifestFormat};

/// A version as given on the command line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Spec {
    Stdin,
    File(PathBuf),
    /// `REV:PATH`: PATH as git reads it (from the repository root, or `./…` from the current
    /// folder).
    Git {
        rev: String,
        path: String,
    },
}

impl Spec {
    /// An existing file wins over a `REV:PATH` reading of the same text.
    pub fn parse(text: &str) -> Spec {
        if text == "-" {
            return Spec::Stdin;
        }
        if Path::new(text).exists() {
            return Spec::File(PathBuf::from(text));
        }
        match text.split_once(':') {
            Some((rev, path)) if !rev.is_empty() && !path.is_empty() => Spec::Git {
                rev: rev.to_owned(),
                path: path.to_owned(),
            },
            _ => Spec::File(PathBuf::from(text)),
        }
    }

    /// How messages name it.
    pub fn origin(&self) -> String {
        match self {
            Spec::Stdin => manifest::STDIN_ORIGIN.to_owned(),
            Spec::File(p) => p.display().to_string(),
            Spec::Git { rev, path } => format!("{rev}:{path}"),
        }
    }

    /// The file in the working tree whose `<stem>.payloads/` folder holds this version's
    /// payloads: the file itself, or PATH for a git version.
    pub fn payload_anchor(&self) -> Option<PathBuf> {
        match self {
            Spec::Stdin => None,
            Spec::File(p) => Some(p.clone()),
            Spec::Git { path, .. } => Some(PathBuf::from(path.strip_prefix("./").unwrap_or(path))),
        }
    }
}

#[derive(Debug, thiserror::Error)]
pub enum SourceError {
    #[error(transparent)]
    Manifest(#[from] ManifestError),
    #[error("{origin}: not inside a git repository (a REV:PATH version is read with `git show`)")]
    NotARepository { origin: String },
    #[error("{origin}: {message}")]
    Git { origin: String, message: String },
}

/// Reads and loads one version.
pub fn load(spec: &Spec, format: Option<ManifestFormat>) -> Result<Manifest, SourceError> {
    match spec {
        Spec::Stdin => Ok(manifest::load_path(Path::new("-"), format)?),
        Spec::File(p) => Ok(manifest::load_path(p, format)?),
        Spec::Git { rev, path } => {
            let origin = spec.origin();
            let text = git_show(rev, path, &origin)?;
            Ok(manifest::load_str(&text, &origin, format)?)
        }
    }
}

fn git(args: &[&str]) -> std::io::Result<std::process::Output> {
    Command::new("git").args(args).output()
}

fn git_show(rev: &str, path: &str, origin: &str) -> Result<String, SourceError> {
    let inside = git(&["rev-parse", "--is-inside-work-tree"]).map_err(|e| SourceError::Git {
        origin: origin.to_owned(),
        message: format!("cannot run git: {e}"),
    })?;
    if !inside.status.success() {
        return Err(SourceError::NotARepository {
            origin: origin.to_owned(),
        });
    }
    let out = git(&["show", &format!("{rev}:{path}")]).map_err(|e| SourceError::Git {
        origin: origin.to_owned(),
        message: format!("cannot run git: {e}"),
    })?;
    if !out.status.success() {
        let stderr = String::from_utf8_lossy(&out.stderr);
        let message = stderr
            .lines()
            .find(|l| !l.trim().is_empty())
            .unwrap_or("git show failed")
            .trim_start_matches("fatal: ")
            .to_owned();
        return Err(SourceError::Git {
            origin: origin.to_owned(),
            message,
        });
    }
    String::from_utf8(out.stdout).map_err(|_| SourceError::Git {
        origin: origin.to_owned(),
        message: "not UTF-8 text".to_owned(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn specs_are_read_as_a_user_means_them() {
        assert_eq!(Spec::parse("-"), Spec::Stdin);
        assert_eq!(
            Spec::parse("HEAD~1:samples/x.json"),
            Spec::Git {
                rev: "HEAD~1".into(),
                path: "samples/x.json".into()
            }
        );
        assert_eq!(Spec::parse("Cargo.toml"), Spec::File("Cargo.toml".into()));
        assert_eq!(Spec::parse("nope.json"), Spec::File("nope.json".into()));
    }
}
