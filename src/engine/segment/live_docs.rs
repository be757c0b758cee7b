//! Live docs (`{segment}_{gen}.liv`): which documents of a segment are not deleted.
//! Layout: `format/live-docs.md`. Small, so verified in full when read.
//!
//! A segment's documents never change; deleting one writes a new generation of this bitset
//! (generation 1, 2, ... in base 36 in the name) and the commit point names the current one.

use super::{segment_name, DocId, SegmentId};
use crate::engine::codec::{check_footer, check_header, ByteReader, IndexOutput};
use crate::engine::store::Directory;
use crate::engine::{Error, Result};

/// Codec name in the `.liv` header.
pub const CODEC: &str = "FathomLiveDocs";
/// Current `.liv` format version.
pub const VERSION: u32 = 1;
/// File extension.
pub const EXT: &str = "liv";

/// A bitset of `max_doc` bits; a set bit means the document is live.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LiveDocs {
    words: Vec<u64>,
    max_doc: u32,
    deleted: u32,
}

/// What [`check_file`] found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Summary {
    /// Documents covered by the bitset.
    pub max_doc: u32,
    /// Documents marked deleted.
    pub num_deleted: u32,
}

impl LiveDocs {
    /// Every document of a segment of `max_doc` documents is live.
    pub fn all_live(max_doc: u32) -> Self {
        let n = (max_doc as usize).div_ceil(64);
        let mut words = vec![u64::MAX; n];
        if max_doc % 64 != 0 {
            if let Some(last) = words.last_mut() {
                *last = (1u64 << (max_doc % 64)) - 1;
            }
        }
        LiveDocs { words, max_doc, deleted: 0 }
    }

    /// Whether `doc` is live (`false` past `max_doc`).
    #[inline]
    pub fn is_live(&self, doc: DocId) -> bool {
        match self.words.get((doc >> 6) as usize) {
            Some(w) => doc < self.max_doc && (w >> (doc & 63)) & 1 == 1,
            None => false,
        }
    }

    /// Marks `doc` deleted; returns whether it was live before (`false` past `max_doc`).
    pub fn delete(&mut self, doc: DocId) -> bool {
        if doc >= self.max_doc {
            return false;
        }
        let Some(w) = self.words.get_mut((doc >> 6) as usize) else { return false };
        let bit = 1u64 << (doc & 63);
        if *w & bit == 0 {
            return false;
        }
        *w &= !bit;
        self.deleted += 1;
        true
    }

    /// Documents marked deleted.
    pub fn num_deleted(&self) -> u32 {
        self.deleted
    }

    /// Documents covered.
    pub fn max_doc(&self) -> u32 {
        self.max_doc
    }

    /// `{segment}_{gen}.liv` with `gen` in base 36 (`_3_a.liv` is generation 10 of `_3`).
    pub fn file_name(seg: &SegmentId, gen: u64) -> String {
        // segment_name gives "_" + base 36; reuse its digits.
        format!("{}{}.{EXT}", seg.name, segment_name(gen))
    }

    /// Encodes the body (between header and footer).
    fn encode(&self, out: &mut Vec<u8>) {
        out.extend_from_slice(&self.max_doc.to_le_bytes());
        out.extend_from_slice(&self.deleted.to_le_bytes());
        for w in &self.words {
            out.extend_from_slice(&w.to_le_bytes());
        }
    }

    /// Decodes and verifies a body: length, no bits past `max_doc`, deleted count equals the
    /// number of clear bits. `base` is the body's offset in the file.
    fn decode(body: &[u8], base: u64, expected_max_doc: Option<u32>) -> Result<LiveDocs> {
        let mut r = ByteReader::at(body, base);
        let max_doc = r.u32()?;
        if let Some(want) = expected_max_doc {
            if max_doc != want {
                return Err(Error::corrupt("", base, format!("live docs cover {max_doc} docs, segment has {want}")));
            }
        }
        let deleted = r.u32()?;
        let n = (max_doc as usize).div_ceil(64);
        if r.remaining() != n * 8 {
            return Err(r.error(format!("bitset of {max_doc} docs needs {} bytes, found {}", n * 8, r.remaining())));
        }
        let mut words = Vec::with_capacity(n);
        let mut live = 0u64;
        for i in 0..n {
            let at = r.offset();
            let w = r.u64()?;
            if i + 1 == n && max_doc % 64 != 0 && w >> (max_doc % 64) != 0 {
                return Err(Error::corrupt("", at, "live bits set past max_doc"));
            }
            live += w.count_ones() as u64;
            words.push(w);
        }
        let actual_deleted = max_doc as u64 - live;
        if actual_deleted != deleted as u64 {
            return Err(Error::corrupt(
                "",
                base + 4,
                format!("deleted count says {deleted}, bitset has {actual_deleted}"),
            ));
        }
        Ok(LiveDocs { words, max_doc, deleted })
    }

    /// Writes generation `gen`; returns the file name.
    pub fn write(&self, dir: &dyn Directory, seg: &SegmentId, gen: u64) -> Result<String> {
        let name = Self::file_name(seg, gen);
        let mut out = IndexOutput::create(dir, &name, CODEC, VERSION, &seg.id)?;
        let mut body = Vec::with_capacity(8 + self.words.len() * 8);
        self.encode(&mut body);
        out.put(&body)?;
        out.finish()?;
        Ok(name)
    }

    /// Reads generation `gen` and verifies it in full (checksum, segment id, `max_doc`, counts).
    pub fn read(dir: &dyn Directory, seg: &SegmentId, gen: u64, max_doc: u32) -> Result<Self> {
        let name = Self::file_name(seg, gen);
        let bytes = dir.open(&name)?;
        decode_file(&bytes, &name, Some(&seg.id), Some(max_doc))
    }
}

fn decode_file(bytes: &[u8], name: &str, id: Option<&[u8; 16]>, max_doc: Option<u32>) -> Result<LiveDocs> {
    let body = check_footer(bytes, name)?;
    let h = check_header(body, name, CODEC, VERSION, VERSION, id)?;
    LiveDocs::decode(&body[h.len..], h.len as u64, max_doc).map_err(|e| e.in_file(name))
}

/// Verifies a whole `.liv` file image (the fuzz target's entry point). `max_doc` is checked
/// against the file when given (`u32::MAX` accepts any).
pub fn check_file(bytes: &[u8], max_doc: u32) -> Result<Summary> {
    let want = (max_doc != u32::MAX).then_some(max_doc);
    let l = decode_file(bytes, "<liv>", None, want)?;
    Ok(Summary { max_doc: l.max_doc, num_deleted: l.deleted })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::store::RamDirectory;
    use proptest::prelude::*;

    fn seg() -> SegmentId {
        SegmentId { name: "_3".into(), id: [9; 16] }
    }

    #[test]
    fn names_use_base36_generations() {
        assert_eq!(LiveDocs::file_name(&seg(), 1), "_3_1.liv");
        assert_eq!(LiveDocs::file_name(&seg(), 10), "_3_a.liv");
        assert_eq!(LiveDocs::file_name(&seg(), 36), "_3_10.liv");
    }

    #[test]
    fn delete_and_round_trip() {
        let mut l = LiveDocs::all_live(70);
        assert!(l.is_live(69) && !l.is_live(70) && !l.is_live(u32::MAX));
        assert!(l.delete(3));
        assert!(!l.delete(3));
        assert!(!l.delete(70));
        assert!(l.delete(69));
        assert_eq!(l.num_deleted(), 2);
        let dir = RamDirectory::new();
        let name = l.write(&dir, &seg(), 2).unwrap();
        assert_eq!(name, "_3_2.liv");
        let back = LiveDocs::read(&dir, &seg(), 2, 70).unwrap();
        assert_eq!(back, l);
        let e = LiveDocs::read(&dir, &seg(), 2, 71).unwrap_err();
        assert!(e.to_string().contains("cover 70 docs") && e.to_string().contains("_3_2.liv"), "{e}");
        assert!(LiveDocs::read(&dir, &SegmentId { name: "_3".into(), id: [1; 16] }, 2, 70).is_err());
        assert!(matches!(LiveDocs::read(&dir, &seg(), 3, 70), Err(Error::FileNotFound { .. })));
    }

    #[test]
    fn empty_segment() {
        let l = LiveDocs::all_live(0);
        let dir = RamDirectory::new();
        l.write(&dir, &seg(), 1).unwrap();
        assert_eq!(LiveDocs::read(&dir, &seg(), 1, 0).unwrap(), l);
    }

    #[test]
    fn every_flipped_byte_and_truncation_is_an_error() {
        let mut l = LiveDocs::all_live(130);
        for d in [0, 5, 64, 129] {
            l.delete(d);
        }
        let dir = RamDirectory::new();
        let name = l.write(&dir, &seg(), 1).unwrap();
        let bytes = dir.open(&name).unwrap().to_vec();
        assert_eq!(check_file(&bytes, 130).unwrap(), Summary { max_doc: 130, num_deleted: 4 });
        for i in 0..bytes.len() {
            for mask in [1u8, 0x80, 0xff] {
                let mut b = bytes.clone();
                b[i] ^= mask;
                assert!(check_file(&b, 130).is_err(), "flip at {i} accepted");
            }
        }
        for n in 0..bytes.len() {
            assert!(check_file(&bytes[..n], 130).is_err());
        }
    }

    /// A bitset whose CRC was recomputed after damage must still be rejected by its invariants.
    #[test]
    fn invariant_violations_behind_a_valid_checksum() {
        use crate::engine::codec::{header::footer_bytes, write_header};
        let mk = |body: &[u8]| {
            let mut f = Vec::new();
            write_header(&mut f, CODEC, VERSION, &[0; 16]);
            f.extend_from_slice(body);
            let crc = crc32fast::hash(&f);
            f.extend_from_slice(&footer_bytes(crc));
            f
        };
        let mut body = Vec::new();
        body.extend_from_slice(&3u32.to_le_bytes());
        body.extend_from_slice(&0u32.to_le_bytes());
        body.extend_from_slice(&0b1111u64.to_le_bytes());
        let e = check_file(&mk(&body), u32::MAX).unwrap_err();
        assert!(e.to_string().contains("past max_doc"), "{e}");
        body[8..16].copy_from_slice(&0b011u64.to_le_bytes());
        let e = check_file(&mk(&body), u32::MAX).unwrap_err();
        assert!(e.to_string().contains("deleted count says 0, bitset has 1"), "{e}");
    }

    const GOLDEN: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/golden/columns/live_docs.liv");

    /// Regenerated bytes must equal the committed golden file, which must decode to the expected
    /// bitset. `FATHOM_BLESS=1` rewrites it.
    #[test]
    fn golden_file_still_decodes() {
        let mut l = LiveDocs::all_live(10);
        l.delete(1);
        l.delete(8);
        let dir = RamDirectory::new();
        let name = l.write(&dir, &seg(), 1).unwrap();
        let fresh = dir.open(&name).unwrap().to_vec();
        if std::env::var_os("FATHOM_BLESS").is_some() {
            std::fs::write(GOLDEN, &fresh).unwrap();
        }
        let committed = std::fs::read(GOLDEN).expect("golden file (run with FATHOM_BLESS=1 to create)");
        assert_eq!(committed, fresh, "the .liv encoding changed: bump the version and add a golden file");
        dir.overwrite("_3_1.liv", committed);
        let back = LiveDocs::read(&dir, &seg(), 1, 10).unwrap();
        let live: Vec<u32> = (0..10).filter(|&d| back.is_live(d)).collect();
        assert_eq!(live, [0, 2, 3, 4, 5, 6, 7, 9]);
    }

    proptest! {
        #[test]
        fn matches_a_set_model(max_doc in 0u32..300, dels in proptest::collection::vec(0u32..320, 0..100)) {
            let mut l = LiveDocs::all_live(max_doc);
            let mut model = std::collections::BTreeSet::new();
            for d in dels {
                let fresh = d < max_doc && model.insert(d);
                prop_assert_eq!(l.delete(d), fresh);
            }
            prop_assert_eq!(l.num_deleted() as usize, model.len());
            let dir = RamDirectory::new();
            l.write(&dir, &seg(), 7).unwrap();
            let back = LiveDocs::read(&dir, &seg(), 7, max_doc).unwrap();
            for d in 0..max_doc + 2 {
                prop_assert_eq!(back.is_live(d), d < max_doc && !model.contains(&d));
            }
        }
    }
}
