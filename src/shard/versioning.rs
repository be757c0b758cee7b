//! Version resolution for index and delete operations, as OpenSearch's `InternalEngine` does it:
//! `if_seq_no`/`if_primary_term`, `op_type=create`, and the version types internal, external and
//! external_gte. Pure functions over the current state of the document, so they are easy to test.

use crate::engine::Error;

/// How `version` in a request is interpreted.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum VersionType {
    /// Fathom assigns versions: 1, then +1 per change.
    #[default]
    Internal,
    /// The client's version must be greater than the current one.
    External,
    /// The client's version must be greater than or equal to the current one.
    ExternalGte,
}

/// The current state of a document id, from the index or the tombstones.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Current {
    pub seq_no: i64,
    pub primary_term: u64,
    pub version: i64,
    /// A tombstone: the document was deleted.
    pub deleted: bool,
}

/// The concurrency constraints of a request.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Constraints {
    pub if_seq_no: Option<i64>,
    pub if_primary_term: Option<u64>,
    pub version: Option<i64>,
    pub version_type: VersionType,
    /// `op_type=create` (index only).
    pub create: bool,
}

fn conflict(id: &str, reason: String) -> Error {
    Error::VersionConflict { id: id.to_string(), reason }
}

/// The `if_seq_no`/`if_primary_term` check alone (an update checks it against the document it
/// read, before deciding anything).
pub fn check_seq_no(id: &str, c: &Constraints, current: Option<Current>) -> Result<(), Error> {
    // Request validation, with OpenSearch's messages: the two only make sense together.
    match (c.if_seq_no, c.if_primary_term) {
        (Some(_), None) | (Some(_), Some(0)) => {
            return Err(Error::InvalidArgument("ifSeqNo is set, but primary term is [0]".into()));
        }
        (None, Some(t)) if t != 0 => {
            return Err(Error::InvalidArgument(format!("ifSeqNo is unassigned, but primary term is [{t}]")));
        }
        _ => {}
    }
    if let (Some(seq), Some(term)) = (c.if_seq_no, c.if_primary_term) {
        match current {
            Some(cur) if !cur.deleted => {
                if cur.seq_no != seq || cur.primary_term != term {
                    return Err(conflict(
                        id,
                        format!(
                            "required seqNo [{seq}], primary term [{term}]. current document has seqNo [{}] and primary term [{}]",
                            cur.seq_no, cur.primary_term
                        ),
                    ));
                }
            }
            _ => {
                return Err(conflict(
                    id,
                    format!("required seqNo [{seq}], primary term [{term}]. but no document was found"),
                ));
            }
        }
    }
    Ok(())
}

/// Internal versioning with an explicit `version` is a compare-and-set on the live version.
fn check_internal(id: &str, c: &Constraints, live: Option<Current>) -> Result<(), Error> {
    let Some(v) = c.version else { return Ok(()) };
    match live.map(|x| x.version) {
        Some(cv) if cv == v => Ok(()),
        Some(cv) => Err(conflict(id, format!("current version [{cv}] is different than the one provided [{v}]"))),
        None => Err(conflict(id, format!("document does not exist (expected version [{v}])"))),
    }
}

/// External versions must be greater (`external`) or not smaller (`external_gte`) than the
/// current one, tombstones included; returns the version the operation gets.
fn check_external(id: &str, c: &Constraints, current: Option<Current>) -> Result<i64, Error> {
    let v = c.version.ok_or_else(|| Error::InvalidArgument("version type external requires a version".into()))?;
    if let Some(cur) = current {
        let gte = c.version_type == VersionType::ExternalGte;
        if !(if gte { v >= cur.version } else { v > cur.version }) {
            let rel = if gte { "higher than" } else { "higher or equal to" };
            return Err(conflict(id, format!("current version [{}] is {rel} the one provided [{v}]", cur.version)));
        }
    }
    Ok(v)
}

/// The version an index operation gets, or the conflict. `Ok((version, created))`.
pub fn resolve_index(id: &str, c: &Constraints, current: Option<Current>) -> Result<(i64, bool), Error> {
    check_seq_no(id, c, current)?;
    let live = current.filter(|x| !x.deleted);
    if c.create {
        if let Some(cur) = live {
            return Err(conflict(id, format!("document already exists (current version [{}])", cur.version)));
        }
    }
    match c.version_type {
        VersionType::Internal => {
            check_internal(id, c, live)?;
            let next = match current {
                Some(cur) => cur.version + 1,
                None => 1,
            };
            Ok((next, live.is_none()))
        }
        VersionType::External | VersionType::ExternalGte => Ok((check_external(id, c, current)?, live.is_none())),
    }
}

/// The version a delete gets (`Ok((version, found))`), or the conflict.
pub fn resolve_delete(id: &str, c: &Constraints, current: Option<Current>) -> Result<(i64, bool), Error> {
    check_seq_no(id, c, current)?;
    let live = current.filter(|x| !x.deleted);
    match c.version_type {
        VersionType::Internal => {
            check_internal(id, c, live)?;
            Ok((current.map(|x| x.version + 1).unwrap_or(1), live.is_some()))
        }
        VersionType::External | VersionType::ExternalGte => Ok((check_external(id, c, current)?, live.is_some())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cur(seq: i64, v: i64, deleted: bool) -> Option<Current> {
        Some(Current { seq_no: seq, primary_term: 1, version: v, deleted })
    }

    #[test]
    fn internal_versions_count_up() {
        let c = Constraints::default();
        assert_eq!(resolve_index("1", &c, None).unwrap(), (1, true));
        assert_eq!(resolve_index("1", &c, cur(0, 1, false)).unwrap(), (2, false));
        // Re-created after a delete whose tombstone is still known: the version continues.
        assert_eq!(resolve_index("1", &c, cur(1, 2, true)).unwrap(), (3, true));
        assert_eq!(resolve_delete("1", &c, cur(0, 1, false)).unwrap(), (2, true));
        assert_eq!(resolve_delete("1", &c, None).unwrap(), (1, false));
    }

    #[test]
    fn create_conflicts_with_a_live_doc() {
        let c = Constraints { create: true, ..Default::default() };
        let e = resolve_index("1", &c, cur(0, 1, false)).unwrap_err();
        assert_eq!(e.to_string(), "[1]: version conflict, document already exists (current version [1])");
        assert!(resolve_index("1", &c, cur(0, 1, true)).is_ok());
    }

    #[test]
    fn if_seq_no_messages_match_opensearch() {
        let c = Constraints { if_seq_no: Some(5), if_primary_term: Some(1), ..Default::default() };
        let e = resolve_index("1", &c, cur(6, 2, false)).unwrap_err();
        assert_eq!(
            e.to_string(),
            "[1]: version conflict, required seqNo [5], primary term [1]. current document has seqNo [6] and primary term [1]"
        );
        let e = resolve_index("1", &c, None).unwrap_err();
        assert_eq!(
            e.to_string(),
            "[1]: version conflict, required seqNo [5], primary term [1]. but no document was found"
        );
        assert!(resolve_index("1", &c, cur(5, 3, false)).is_ok());
    }

    #[test]
    fn external_versions() {
        let ext = Constraints { version: Some(5), version_type: VersionType::External, ..Default::default() };
        assert_eq!(resolve_index("1", &ext, None).unwrap(), (5, true));
        let e = resolve_index("1", &ext, cur(0, 5, false)).unwrap_err();
        assert_eq!(
            e.to_string(),
            "[1]: version conflict, current version [5] is higher or equal to the one provided [5]"
        );
        let gte = Constraints { version_type: VersionType::ExternalGte, ..ext };
        assert_eq!(resolve_index("1", &gte, cur(0, 5, false)).unwrap(), (5, false));
        assert!(resolve_index("1", &gte, cur(0, 6, false)).is_err());
    }
}
