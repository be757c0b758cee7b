//! translog/: see the module table in `engine/mod.rs`. (Under construction.)
