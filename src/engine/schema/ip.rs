//! IP addresses as `ip` fields hold them: IPv4 and IPv6 in one 128-bit space, IPv4 stored as an
//! IPv4-mapped IPv6 address (`::ffff:a.b.c.d`), as Lucene's `InetAddressPoint` does.

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

/// Parses an IPv4 (`192.168.0.1`, no leading zeros) or IPv6 (`2001:db8::1`, `::ffff:1.2.3.4`)
/// literal. Returns `None` for anything else (OpenSearch: "'x' is not an IP string literal.").
pub fn parse_ip(s: &str) -> Option<u128> {
    match s.parse::<IpAddr>().ok()? {
        IpAddr::V4(v4) => Some(u128::from(v4.to_ipv6_mapped())),
        IpAddr::V6(v6) => Some(u128::from(v6)),
    }
}

/// Prints an address as OpenSearch does: IPv4-mapped addresses in dotted IPv4 form, others in
/// RFC 5952 compressed, lower-case IPv6 form.
pub fn format_ip(v: u128) -> String {
    let v6 = Ipv6Addr::from(v);
    match v6.to_ipv4_mapped() {
        Some(v4) => v4.to_string(),
        None => v6.to_string(),
    }
}

/// The message OpenSearch gives for a value that is not an address.
pub fn not_an_ip(s: &str) -> String {
    format!("'{s}' is not an IP string literal.")
}

/// The IPv4 address of a mapped value, if it is one.
pub fn as_ipv4(v: u128) -> Option<Ipv4Addr> {
    Ipv6Addr::from(v).to_ipv4_mapped()
}
