pub mod aggs;
pub mod cluster;
pub mod http;
pub mod secure;
