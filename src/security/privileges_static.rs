//! The security plugin's static action groups (`static_config/static_action_groups.yml`, the
//! same embedded file the configuration merges into every `action_groups`), as the evaluator's
//! [`ActionGroups`]: for evaluating without a full configuration (tests, benches).

use std::sync::LazyLock;

use super::config::{ActionGroup, CType, ConfigFile};
use super::privileges::ActionGroups;

const STATIC_ACTION_GROUPS_YML: &str = include_str!("static_config/static_action_groups.yml");

static STATIC: LazyLock<ActionGroups> = LazyLock::new(|| {
    // The file is embedded and checked by the test below: it always parses.
    let file: ConfigFile<ActionGroup> = ConfigFile::from_yaml(CType::ActionGroups, STATIC_ACTION_GROUPS_YML)
        .unwrap_or_else(|_| ConfigFile::empty(CType::ActionGroups));
    file.entries.into_iter().map(|(k, v)| (k, v.allowed_actions)).collect()
});

/// The static action groups: name → allowed actions.
pub fn static_action_groups() -> &'static ActionGroups {
    &STATIC
}

/// `groups` plus the static groups (a static group wins over a same-named custom one, as the
/// plugin puts the statics over the stored entries).
pub fn with_static(groups: &ActionGroups) -> ActionGroups {
    let mut out = groups.clone();
    out.extend(STATIC.iter().map(|(k, v)| (k.clone(), v.clone())));
    out
}

#[test]
fn the_static_file_parses() {
    let g = static_action_groups();
    assert!(g.len() > 20, "{}", g.len());
    assert_eq!(g["crud"], vec!["read".to_string(), "write".to_string()]);
    assert_eq!(g["unlimited"], vec!["*".to_string()]);
}
