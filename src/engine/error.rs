//! One error type for the engine. Every error that comes from bytes on disk names the file and,
//! where it is known, the offset and the expected and actual values, so that an operator can find
//! the damage (`fathom inspect FILE` then shows the rest).

use std::fmt;
use std::io;

/// The engine's result type.
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// Everything that can go wrong in the engine.
#[derive(Debug)]
pub enum Error {
    /// An I/O call failed. `op` names the call (`"create"`, `"fsync"`, `"rename"`, ...).
    Io { file: String, op: &'static str, source: io::Error },
    /// A file does not exist.
    FileNotFound { file: String },
    /// A file that must be new already exists.
    FileExists { file: String },
    /// The CRC32 stored in a footer differs from the CRC32 of the bytes before it.
    ChecksumMismatch { file: String, expected: u32, actual: u32 },
    /// The bytes of a file do not follow its format. `offset` is where the reader was.
    Corrupt { file: String, offset: u64, reason: String },
    /// A file was written by an older format version than this build reads.
    FormatTooOld { file: String, version: u32, min: u32 },
    /// A file was written by a newer format version than this build reads.
    FormatTooNew { file: String, version: u32, max: u32 },
    /// The translog is damaged inside its checkpointed (acknowledged) range.
    TranslogCorrupted { file: String, offset: u64, reason: String },
    /// A concurrency check failed (`if_seq_no`/`if_primary_term` or versions).
    VersionConflict { id: String, reason: String },
    /// The caller asked for something invalid (bad field value, unknown field type, ...).
    InvalidArgument(String),
    /// The engine (or shard) was closed or failed earlier and refuses further work.
    Closed(String),
    /// An injected fault from the fault-injecting directory (tests only, but a real error path).
    Injected { file: String, op: &'static str },
}

impl Error {
    /// Builds an [`Error::Io`].
    pub fn io(file: impl Into<String>, op: &'static str, source: io::Error) -> Error {
        Error::Io { file: file.into(), op, source }
    }

    /// Builds an [`Error::Corrupt`].
    pub fn corrupt(file: impl Into<String>, offset: u64, reason: impl Into<String>) -> Error {
        Error::Corrupt { file: file.into(), offset, reason: reason.into() }
    }

    /// Whether this error means the bytes on disk cannot be trusted.
    pub fn is_corruption(&self) -> bool {
        matches!(
            self,
            Error::ChecksumMismatch { .. }
                | Error::Corrupt { .. }
                | Error::TranslogCorrupted { .. }
                | Error::FormatTooOld { .. }
                | Error::FormatTooNew { .. }
        )
    }

    /// The file this error concerns, if any.
    pub fn file(&self) -> Option<&str> {
        match self {
            Error::Io { file, .. }
            | Error::FileNotFound { file }
            | Error::FileExists { file }
            | Error::ChecksumMismatch { file, .. }
            | Error::Corrupt { file, .. }
            | Error::FormatTooOld { file, .. }
            | Error::FormatTooNew { file, .. }
            | Error::TranslogCorrupted { file, .. }
            | Error::Injected { file, .. } => Some(file),
            _ => None,
        }
    }

    /// Re-labels the file of a byte-level error (codecs decode anonymous slices and the caller
    /// knows the file name).
    pub fn in_file(self, name: &str) -> Error {
        match self {
            Error::Corrupt { offset, reason, .. } => Error::Corrupt { file: name.to_string(), offset, reason },
            Error::ChecksumMismatch { expected, actual, .. } => {
                Error::ChecksumMismatch { file: name.to_string(), expected, actual }
            }
            Error::FormatTooOld { version, min, .. } => Error::FormatTooOld { file: name.to_string(), version, min },
            Error::FormatTooNew { version, max, .. } => Error::FormatTooNew { file: name.to_string(), version, max },
            other => other,
        }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Io { file, op, source } => write!(f, "I/O error during {op} of [{file}]: {source}"),
            Error::FileNotFound { file } => write!(f, "file not found: [{file}]"),
            Error::FileExists { file } => write!(f, "file already exists: [{file}]"),
            Error::ChecksumMismatch { file, expected, actual } => write!(
                f,
                "checksum failed (hardware problem?): expected={expected:#010x} actual={actual:#010x} (resource=[{file}])"
            ),
            Error::Corrupt { file, offset, reason } => {
                write!(f, "corrupt index: {reason} (resource=[{file}], offset={offset})")
            }
            Error::FormatTooOld { file, version, min } => write!(
                f,
                "format version is not supported (resource=[{file}]): {version} (needs to be between {min} and the current version); the file is too old"
            ),
            Error::FormatTooNew { file, version, max } => write!(
                f,
                "format version is not supported (resource=[{file}]): {version} (needs to be at most {max}); the file was written by a newer version"
            ),
            Error::TranslogCorrupted { file, offset, reason } => {
                write!(f, "translog from source [{file}] is corrupted at offset {offset}: {reason}")
            }
            Error::VersionConflict { id, reason } => write!(f, "[{id}]: version conflict, {reason}"),
            Error::InvalidArgument(msg) => f.write_str(msg),
            Error::Closed(msg) => write!(f, "engine closed: {msg}"),
            Error::Injected { file, op } => write!(f, "injected fault during {op} of [{file}]"),
        }
    }
}

impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Error::Io { source, .. } => Some(source),
            _ => None,
        }
    }
}
