//! security/: the security plugin's equivalent (feature `server`), off by default
//! (`plugins.security.disabled: true`). This first slice holds the settings and TLS; the
//! authentication, authorization and security-index slices build on it.
//!
//! | file | holds |
//! |---|---|
//! | `settings.rs` | `plugins.security.*` node settings, typed and checked at startup |
//! | `tls.rs` | PEM loading and the rustls server configuration of the HTTP listener |
//! | `node_tls.rs` | mutual TLS between nodes: verifiers checking `plugins.security.nodes_dn` |
//! | `dn.rs` | subject DNs of certificates (RFC 2253), the plugin's DN patterns |
//! | `actions.rs` | what a request needs: cluster actions, index expressions and their actions |
//! | `privileges.rs` | the evaluator: roles mapping, action groups, index resolution, denials |
//! | `privileges_static.rs` | the plugin's static action groups |
//! | `patterns.rs` | the plugin's name patterns (`*`, `?`, `/regex/`) and `${user.name}` placeholders |
//! | `config/` | the configuration files (users, roles, mappings, authc/authz), static entries |
//! | `password.rs` | internal users' passwords: the plugin's validation, bcrypt hash/verify |
//! | `admin_tool.rs` | `fathom securityadmin`: files into the security index (or back) over HTTPS with the admin cert |
//! | `authn.rs` | authentication of a request: admin certificate, basic, clientcert, anonymous, the login cache |
//! | `authn_limits.rs` | `auth_failure_listeners`: blocking clients and user names after failed logins |
//! | `authz.rs` | per-configuration compiled roles, mappings, tenants; the cluster's indices for the evaluator |
//! | `user.rs` | the authenticated user of a request (`User`, on `RestRequest.user`) |
//! | `demo.rs` | `fathom setup-security`: the demo CA, node and admin certificates and settings |

pub mod actions;
pub mod admin_tool;
pub mod authn;
pub mod authn_limits;
pub mod authz;
pub mod config;
pub mod demo;
pub mod dn;
pub mod node_tls;
pub mod password;
pub mod patterns;
pub mod privileges;
pub mod privileges_static;
pub mod settings;
pub mod tls;
pub mod user;

pub use settings::{ClientAuth, SecuritySettings, TlsFiles};
pub use user::{AuthType, User};
