//! The node's metadata state file (`_state/metadata-{gen}.st`): any bytes decode to metadata or
//! an error, never a panic; a file with a repaired footer exercises the JSON and metadata parsing
//! behind the checksum.
#![no_main]

use fathom::cluster::metadata::Metadata;
use fathom::cluster::state_file::decode;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(v) = decode(data, "metadata-1.st") {
        let _ = Metadata::from_state_json(&v);
    }
    if let Some(fixed) = fathom_fuzz::with_valid_footer(data) {
        if let Ok(v) = decode(&fixed, "metadata-1.st") {
            if let Ok(md) = Metadata::from_state_json(&v) {
                // What decodes must encode and decode again to the same indices.
                let again = Metadata::from_state_json(&md.to_state_json()).expect("re-encoded metadata decodes");
                assert_eq!(again.indices, md.indices);
            }
        }
    }
});
