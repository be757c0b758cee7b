//! action/security/: the security plugin's configuration index and its REST API (the
//! authentication and privilege checks of ordinary requests live in `security/` and `http/`).
//!
//! | file | holds |
//! |---|---|
//! | `index.rs` | `.opendistro_security`: creating it from the files, reading and writing one doc per type |
//! | `reload.rs` | the `configupdate` broadcast: every node reloads its configuration from the index |
//! | `account.rs` | `api/account`: the caller's account and its password change |
//! | `api.rs` | `api/{internalusers,roles,rolesmapping,actiongroups,tenants}`: CRUD with the plugin's checks |
//! | `content.rs` | the resources, their bodies' allowed keys and types, typed normalisation |
//! | `patch.rs` | RFC 6902 JSON patch (add, remove, replace, move, copy, test) |
//! | `upgrade.rs` | `api/_upgrade_check`, `api/_upgrade_perform`: the shipped roles against the active ones |
//! | `versions.rs` | configuration versions: record, list, get, rollback |
//! | `responses.rs` | the plugin's `{"status","message"}` replies |

pub mod account;
pub mod api;
pub mod content;
pub mod index;
pub mod patch;
pub mod reload;
pub mod responses;
pub mod upgrade;
pub mod versions;
