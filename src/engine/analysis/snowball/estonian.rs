//! Snowball's Estonian stemmer, transcribed from the code the Snowball compiler generates for
//! `estonian.sbl` (as Lucene's `org.tartarus.snowball.ext.EstonianStemmer`) by
//! `tests/golden/analysis/snowball/py2rust.py`; runs on [`super::env::Env`].

#![allow(clippy::all, unused_parens, unused_variables, unused_labels)]

use super::among;
use super::env::{Among, Env};

const G_V1: &[u16] =
    &['a' as u16, 'e' as u16, 'i' as u16, 'o' as u16, 'u' as u16, 'ä' as u16, 'õ' as u16, 'ö' as u16, 'ü' as u16];
const G_RV: &[u16] = &['a' as u16, 'e' as u16, 'i' as u16, 'o' as u16, 'u' as u16];
const G_KI: &[u16] = &[
    'b' as u16,
    'd' as u16,
    'f' as u16,
    'g' as u16,
    'h' as u16,
    'k' as u16,
    'p' as u16,
    's' as u16,
    't' as u16,
    'z' as u16,
    'š' as u16,
    'ž' as u16,
];
const G_GI: &[u16] = &[
    'a' as u16,
    'c' as u16,
    'e' as u16,
    'i' as u16,
    'j' as u16,
    'l' as u16,
    'm' as u16,
    'n' as u16,
    'o' as u16,
    'q' as u16,
    'r' as u16,
    'u' as u16,
    'v' as u16,
    'w' as u16,
    'x' as u16,
    'ä' as u16,
    'õ' as u16,
    'ö' as u16,
    'ü' as u16,
];

static A_0: [Among; 2] = [among!(['g', 'i'], -1, 1), among!(['k', 'i'], -1, 2)];

static A_1: [Among; 21] = [
    among!(['d', 'a'], -1, 3),
    among!(['m', 'a', 't', 'a'], -1, 1),
    among!(['b'], -1, 3),
    among!(['k', 's', 'i', 'd'], -1, 1),
    among!(['n', 'u', 'k', 's', 'i', 'd'], 3, 1),
    among!(['m', 'e'], -1, 3),
    among!(['s', 'i', 'm', 'e'], 5, 1),
    among!(['k', 's', 'i', 'm', 'e'], 6, 1),
    among!(['n', 'u', 'k', 's', 'i', 'm', 'e'], 7, 1),
    among!(['a', 'k', 's', 'e'], -1, 2),
    among!(['d', 'a', 'k', 's', 'e'], 9, 1),
    among!(['t', 'a', 'k', 's', 'e'], 9, 1),
    among!(['s', 'i', 't', 'e'], -1, 1),
    among!(['k', 's', 'i', 't', 'e'], 12, 1),
    among!(['n', 'u', 'k', 's', 'i', 't', 'e'], 13, 1),
    among!(['n'], -1, 3),
    among!(['s', 'i', 'n'], 15, 1),
    among!(['k', 's', 'i', 'n'], 16, 1),
    among!(['n', 'u', 'k', 's', 'i', 'n'], 17, 1),
    among!(['d', 'a', 'k', 's'], -1, 1),
    among!(['t', 'a', 'k', 's'], -1, 1),
];

static A_2: [Among; 9] = [
    among!(['a', 'a'], -1, -1),
    among!(['e', 'e'], -1, -1),
    among!(['i', 'i'], -1, -1),
    among!(['o', 'o'], -1, -1),
    among!(['u', 'u'], -1, -1),
    among!(['ä', 'ä'], -1, -1),
    among!(['õ', 'õ'], -1, -1),
    among!(['ö', 'ö'], -1, -1),
    among!(['ü', 'ü'], -1, -1),
];

static A_3: [Among; 1] = [among!(['i'], -1, 1)];

static A_4: [Among; 12] = [
    among!(['l', 'a', 'n', 'e'], -1, 1),
    among!(['l', 'i', 'n', 'e'], -1, 3),
    among!(['m', 'i', 'n', 'e'], -1, 2),
    among!(['l', 'a', 's', 's', 'e'], -1, 1),
    among!(['l', 'i', 's', 's', 'e'], -1, 3),
    among!(['m', 'i', 's', 's', 'e'], -1, 2),
    among!(['l', 'a', 's', 'i'], -1, 1),
    among!(['l', 'i', 's', 'i'], -1, 3),
    among!(['m', 'i', 's', 'i'], -1, 2),
    among!(['l', 'a', 's', 't'], -1, 1),
    among!(['l', 'i', 's', 't'], -1, 3),
    among!(['m', 'i', 's', 't'], -1, 2),
];

static A_5: [Among; 10] = [
    among!(['g', 'a'], -1, 1),
    among!(['t', 'a'], -1, 1),
    among!(['l', 'e'], -1, 1),
    among!(['s', 's', 'e'], -1, 1),
    among!(['l'], -1, 1),
    among!(['s'], -1, 1),
    among!(['k', 's'], 5, 1),
    among!(['t'], -1, 2),
    among!(['l', 't'], 7, 1),
    among!(['s', 't'], 7, 1),
];

static A_6: [Among; 5] = [
    among!([], -1, 2),
    among!(['l', 'a', 's'], 0, 1),
    among!(['l', 'i', 's'], 0, 1),
    among!(['m', 'i', 's'], 0, 1),
    among!(['t'], 0, -1),
];

static A_7: [Among; 7] = [
    among!(['d'], -1, 4),
    among!(['s', 'i', 'd'], 0, 2),
    among!(['d', 'e'], -1, 4),
    among!(['i', 'k', 'k', 'u', 'd', 'e'], 2, 1),
    among!(['i', 'k', 'e'], -1, 1),
    among!(['i', 'k', 'k', 'e'], -1, 1),
    among!(['t', 'e'], -1, 3),
];

static A_8: [Among; 4] =
    [among!(['v', 'a'], -1, -1), among!(['d', 'u'], -1, -1), among!(['n', 'u'], -1, -1), among!(['t', 'u'], -1, -1)];

static A_9: [Among; 3] = [among!(['k', 'k'], -1, 1), among!(['p', 'p'], -1, 2), among!(['t', 't'], -1, 3)];

static A_10: [Among; 3] = [among!(['m', 'a'], -1, 2), among!(['m', 'a', 'i'], -1, 1), among!(['m'], -1, 1)];

static A_11: [Among; 290] = [
    among!(['j', 'o', 'o', 'b'], -1, 1),
    among!(['j', 'o', 'o', 'd'], -1, 1),
    among!(['j', 'o', 'o', 'd', 'a', 'k', 's', 'e'], 1, 1),
    among!(['j', 'o', 'o', 'm', 'a'], -1, 1),
    among!(['j', 'o', 'o', 'm', 'a', 't', 'a'], 3, 1),
    among!(['j', 'o', 'o', 'm', 'e'], -1, 1),
    among!(['j', 'o', 'o', 'n'], -1, 1),
    among!(['j', 'o', 'o', 't', 'e'], -1, 1),
    among!(['j', 'o', 'o', 'v', 'a', 'd'], -1, 1),
    among!(['j', 'u', 'u', 'a'], -1, 1),
    among!(['j', 'u', 'u', 'a', 'k', 's', 'e'], 9, 1),
    among!(['j', 'ä', 'i'], -1, 12),
    among!(['j', 'ä', 'i', 'd'], 11, 12),
    among!(['j', 'ä', 'i', 'm', 'e'], 11, 12),
    among!(['j', 'ä', 'i', 'n'], 11, 12),
    among!(['j', 'ä', 'i', 't', 'e'], 11, 12),
    among!(['j', 'ä', 'ä', 'b'], -1, 12),
    among!(['j', 'ä', 'ä', 'd'], -1, 12),
    among!(['j', 'ä', 'ä', 'd', 'a'], 17, 12),
    among!(['j', 'ä', 'ä', 'd', 'a', 'k', 's', 'e'], 18, 12),
    among!(['j', 'ä', 'ä', 'd', 'i'], 17, 12),
    among!(['j', 'ä', 'ä', 'k', 's'], -1, 12),
    among!(['j', 'ä', 'ä', 'k', 's', 'i', 'd'], 21, 12),
    among!(['j', 'ä', 'ä', 'k', 's', 'i', 'm', 'e'], 21, 12),
    among!(['j', 'ä', 'ä', 'k', 's', 'i', 'n'], 21, 12),
    among!(['j', 'ä', 'ä', 'k', 's', 'i', 't', 'e'], 21, 12),
    among!(['j', 'ä', 'ä', 'm', 'a'], -1, 12),
    among!(['j', 'ä', 'ä', 'm', 'a', 't', 'a'], 26, 12),
    among!(['j', 'ä', 'ä', 'm', 'e'], -1, 12),
    among!(['j', 'ä', 'ä', 'n'], -1, 12),
    among!(['j', 'ä', 'ä', 't', 'e'], -1, 12),
    among!(['j', 'ä', 'ä', 'v', 'a', 'd'], -1, 12),
    among!(['j', 'õ', 'i'], -1, 1),
    among!(['j', 'õ', 'i', 'd'], 32, 1),
    among!(['j', 'õ', 'i', 'm', 'e'], 32, 1),
    among!(['j', 'õ', 'i', 'n'], 32, 1),
    among!(['j', 'õ', 'i', 't', 'e'], 32, 1),
    among!(['k', 'e', 'e', 'b'], -1, 4),
    among!(['k', 'e', 'e', 'd'], -1, 4),
    among!(['k', 'e', 'e', 'd', 'a', 'k', 's', 'e'], 38, 4),
    among!(['k', 'e', 'e', 'k', 's'], -1, 4),
    among!(['k', 'e', 'e', 'k', 's', 'i', 'd'], 40, 4),
    among!(['k', 'e', 'e', 'k', 's', 'i', 'm', 'e'], 40, 4),
    among!(['k', 'e', 'e', 'k', 's', 'i', 'n'], 40, 4),
    among!(['k', 'e', 'e', 'k', 's', 'i', 't', 'e'], 40, 4),
    among!(['k', 'e', 'e', 'm', 'a'], -1, 4),
    among!(['k', 'e', 'e', 'm', 'a', 't', 'a'], 45, 4),
    among!(['k', 'e', 'e', 'm', 'e'], -1, 4),
    among!(['k', 'e', 'e', 'n'], -1, 4),
    among!(['k', 'e', 'e', 's'], -1, 4),
    among!(['k', 'e', 'e', 't', 'a'], -1, 4),
    among!(['k', 'e', 'e', 't', 'e'], -1, 4),
    among!(['k', 'e', 'e', 'v', 'a', 'd'], -1, 4),
    among!(['k', 'ä', 'i', 'a'], -1, 8),
    among!(['k', 'ä', 'i', 'a', 'k', 's', 'e'], 53, 8),
    among!(['k', 'ä', 'i', 'b'], -1, 8),
    among!(['k', 'ä', 'i', 'd'], -1, 8),
    among!(['k', 'ä', 'i', 'd', 'i'], 56, 8),
    among!(['k', 'ä', 'i', 'k', 's'], -1, 8),
    among!(['k', 'ä', 'i', 'k', 's', 'i', 'd'], 58, 8),
    among!(['k', 'ä', 'i', 'k', 's', 'i', 'm', 'e'], 58, 8),
    among!(['k', 'ä', 'i', 'k', 's', 'i', 'n'], 58, 8),
    among!(['k', 'ä', 'i', 'k', 's', 'i', 't', 'e'], 58, 8),
    among!(['k', 'ä', 'i', 'm', 'a'], -1, 8),
    among!(['k', 'ä', 'i', 'm', 'a', 't', 'a'], 63, 8),
    among!(['k', 'ä', 'i', 'm', 'e'], -1, 8),
    among!(['k', 'ä', 'i', 'n'], -1, 8),
    among!(['k', 'ä', 'i', 's'], -1, 8),
    among!(['k', 'ä', 'i', 't', 'e'], -1, 8),
    among!(['k', 'ä', 'i', 'v', 'a', 'd'], -1, 8),
    among!(['l', 'a', 'o', 'b'], -1, 16),
    among!(['l', 'a', 'o', 'd'], -1, 16),
    among!(['l', 'a', 'o', 'k', 's'], -1, 16),
    among!(['l', 'a', 'o', 'k', 's', 'i', 'd'], 72, 16),
    among!(['l', 'a', 'o', 'k', 's', 'i', 'm', 'e'], 72, 16),
    among!(['l', 'a', 'o', 'k', 's', 'i', 'n'], 72, 16),
    among!(['l', 'a', 'o', 'k', 's', 'i', 't', 'e'], 72, 16),
    among!(['l', 'a', 'o', 'm', 'e'], -1, 16),
    among!(['l', 'a', 'o', 'n'], -1, 16),
    among!(['l', 'a', 'o', 't', 'e'], -1, 16),
    among!(['l', 'a', 'o', 'v', 'a', 'd'], -1, 16),
    among!(['l', 'o', 'e', 'b'], -1, 14),
    among!(['l', 'o', 'e', 'd'], -1, 14),
    among!(['l', 'o', 'e', 'k', 's'], -1, 14),
    among!(['l', 'o', 'e', 'k', 's', 'i', 'd'], 83, 14),
    among!(['l', 'o', 'e', 'k', 's', 'i', 'm', 'e'], 83, 14),
    among!(['l', 'o', 'e', 'k', 's', 'i', 'n'], 83, 14),
    among!(['l', 'o', 'e', 'k', 's', 'i', 't', 'e'], 83, 14),
    among!(['l', 'o', 'e', 'm', 'e'], -1, 14),
    among!(['l', 'o', 'e', 'n'], -1, 14),
    among!(['l', 'o', 'e', 't', 'e'], -1, 14),
    among!(['l', 'o', 'e', 'v', 'a', 'd'], -1, 14),
    among!(['l', 'o', 'o', 'b'], -1, 7),
    among!(['l', 'o', 'o', 'd'], -1, 7),
    among!(['l', 'o', 'o', 'd', 'i'], 93, 7),
    among!(['l', 'o', 'o', 'k', 's'], -1, 7),
    among!(['l', 'o', 'o', 'k', 's', 'i', 'd'], 95, 7),
    among!(['l', 'o', 'o', 'k', 's', 'i', 'm', 'e'], 95, 7),
    among!(['l', 'o', 'o', 'k', 's', 'i', 'n'], 95, 7),
    among!(['l', 'o', 'o', 'k', 's', 'i', 't', 'e'], 95, 7),
    among!(['l', 'o', 'o', 'm', 'a'], -1, 7),
    among!(['l', 'o', 'o', 'm', 'a', 't', 'a'], 100, 7),
    among!(['l', 'o', 'o', 'm', 'e'], -1, 7),
    among!(['l', 'o', 'o', 'n'], -1, 7),
    among!(['l', 'o', 'o', 't', 'e'], -1, 7),
    among!(['l', 'o', 'o', 'v', 'a', 'd'], -1, 7),
    among!(['l', 'u', 'u', 'a'], -1, 7),
    among!(['l', 'u', 'u', 'a', 'k', 's', 'e'], 106, 7),
    among!(['l', 'õ', 'i'], -1, 6),
    among!(['l', 'õ', 'i', 'd'], 108, 6),
    among!(['l', 'õ', 'i', 'm', 'e'], 108, 6),
    among!(['l', 'õ', 'i', 'n'], 108, 6),
    among!(['l', 'õ', 'i', 't', 'e'], 108, 6),
    among!(['l', 'ö', 'ö', 'b'], -1, 5),
    among!(['l', 'ö', 'ö', 'd'], -1, 5),
    among!(['l', 'ö', 'ö', 'd', 'a', 'k', 's', 'e'], 114, 5),
    among!(['l', 'ö', 'ö', 'd', 'i'], 114, 5),
    among!(['l', 'ö', 'ö', 'k', 's'], -1, 5),
    among!(['l', 'ö', 'ö', 'k', 's', 'i', 'd'], 117, 5),
    among!(['l', 'ö', 'ö', 'k', 's', 'i', 'm', 'e'], 117, 5),
    among!(['l', 'ö', 'ö', 'k', 's', 'i', 'n'], 117, 5),
    among!(['l', 'ö', 'ö', 'k', 's', 'i', 't', 'e'], 117, 5),
    among!(['l', 'ö', 'ö', 'm', 'a'], -1, 5),
    among!(['l', 'ö', 'ö', 'm', 'a', 't', 'a'], 122, 5),
    among!(['l', 'ö', 'ö', 'm', 'e'], -1, 5),
    among!(['l', 'ö', 'ö', 'n'], -1, 5),
    among!(['l', 'ö', 'ö', 't', 'e'], -1, 5),
    among!(['l', 'ö', 'ö', 'v', 'a', 'd'], -1, 5),
    among!(['l', 'ü', 'ü', 'a'], -1, 5),
    among!(['l', 'ü', 'ü', 'a', 'k', 's', 'e'], 128, 5),
    among!(['m', 'ü', 'ü', 'a'], -1, 13),
    among!(['m', 'ü', 'ü', 'a', 'k', 's', 'e'], 130, 13),
    among!(['m', 'ü', 'ü', 'b'], -1, 13),
    among!(['m', 'ü', 'ü', 'd'], -1, 13),
    among!(['m', 'ü', 'ü', 'd', 'i'], 133, 13),
    among!(['m', 'ü', 'ü', 'k', 's'], -1, 13),
    among!(['m', 'ü', 'ü', 'k', 's', 'i', 'd'], 135, 13),
    among!(['m', 'ü', 'ü', 'k', 's', 'i', 'm', 'e'], 135, 13),
    among!(['m', 'ü', 'ü', 'k', 's', 'i', 'n'], 135, 13),
    among!(['m', 'ü', 'ü', 'k', 's', 'i', 't', 'e'], 135, 13),
    among!(['m', 'ü', 'ü', 'm', 'a'], -1, 13),
    among!(['m', 'ü', 'ü', 'm', 'a', 't', 'a'], 140, 13),
    among!(['m', 'ü', 'ü', 'm', 'e'], -1, 13),
    among!(['m', 'ü', 'ü', 'n'], -1, 13),
    among!(['m', 'ü', 'ü', 's'], -1, 13),
    among!(['m', 'ü', 'ü', 't', 'e'], -1, 13),
    among!(['m', 'ü', 'ü', 'v', 'a', 'd'], -1, 13),
    among!(['n', 'ä', 'e', 'b'], -1, 18),
    among!(['n', 'ä', 'e', 'd'], -1, 18),
    among!(['n', 'ä', 'e', 'k', 's'], -1, 18),
    among!(['n', 'ä', 'e', 'k', 's', 'i', 'd'], 149, 18),
    among!(['n', 'ä', 'e', 'k', 's', 'i', 'm', 'e'], 149, 18),
    among!(['n', 'ä', 'e', 'k', 's', 'i', 'n'], 149, 18),
    among!(['n', 'ä', 'e', 'k', 's', 'i', 't', 'e'], 149, 18),
    among!(['n', 'ä', 'e', 'm', 'e'], -1, 18),
    among!(['n', 'ä', 'e', 'n'], -1, 18),
    among!(['n', 'ä', 'e', 't', 'e'], -1, 18),
    among!(['n', 'ä', 'e', 'v', 'a', 'd'], -1, 18),
    among!(['n', 'ä', 'g', 'e', 'm', 'a'], -1, 18),
    among!(['n', 'ä', 'g', 'e', 'm', 'a', 't', 'a'], 158, 18),
    among!(['n', 'ä', 'h', 'a'], -1, 18),
    among!(['n', 'ä', 'h', 'a', 'k', 's', 'e'], 160, 18),
    among!(['n', 'ä', 'h', 't', 'i'], -1, 18),
    among!(['p', 'õ', 'e', 'b'], -1, 15),
    among!(['p', 'õ', 'e', 'd'], -1, 15),
    among!(['p', 'õ', 'e', 'k', 's'], -1, 15),
    among!(['p', 'õ', 'e', 'k', 's', 'i', 'd'], 165, 15),
    among!(['p', 'õ', 'e', 'k', 's', 'i', 'm', 'e'], 165, 15),
    among!(['p', 'õ', 'e', 'k', 's', 'i', 'n'], 165, 15),
    among!(['p', 'õ', 'e', 'k', 's', 'i', 't', 'e'], 165, 15),
    among!(['p', 'õ', 'e', 'm', 'e'], -1, 15),
    among!(['p', 'õ', 'e', 'n'], -1, 15),
    among!(['p', 'õ', 'e', 't', 'e'], -1, 15),
    among!(['p', 'õ', 'e', 'v', 'a', 'd'], -1, 15),
    among!(['s', 'a', 'a', 'b'], -1, 2),
    among!(['s', 'a', 'a', 'd'], -1, 2),
    among!(['s', 'a', 'a', 'd', 'a'], 175, 2),
    among!(['s', 'a', 'a', 'd', 'a', 'k', 's', 'e'], 176, 2),
    among!(['s', 'a', 'a', 'd', 'i'], 175, 2),
    among!(['s', 'a', 'a', 'k', 's'], -1, 2),
    among!(['s', 'a', 'a', 'k', 's', 'i', 'd'], 179, 2),
    among!(['s', 'a', 'a', 'k', 's', 'i', 'm', 'e'], 179, 2),
    among!(['s', 'a', 'a', 'k', 's', 'i', 'n'], 179, 2),
    among!(['s', 'a', 'a', 'k', 's', 'i', 't', 'e'], 179, 2),
    among!(['s', 'a', 'a', 'm', 'a'], -1, 2),
    among!(['s', 'a', 'a', 'm', 'a', 't', 'a'], 184, 2),
    among!(['s', 'a', 'a', 'm', 'e'], -1, 2),
    among!(['s', 'a', 'a', 'n'], -1, 2),
    among!(['s', 'a', 'a', 't', 'e'], -1, 2),
    among!(['s', 'a', 'a', 'v', 'a', 'd'], -1, 2),
    among!(['s', 'a', 'i'], -1, 2),
    among!(['s', 'a', 'i', 'd'], 190, 2),
    among!(['s', 'a', 'i', 'm', 'e'], 190, 2),
    among!(['s', 'a', 'i', 'n'], 190, 2),
    among!(['s', 'a', 'i', 't', 'e'], 190, 2),
    among!(['s', 'õ', 'i'], -1, 9),
    among!(['s', 'õ', 'i', 'd'], 195, 9),
    among!(['s', 'õ', 'i', 'm', 'e'], 195, 9),
    among!(['s', 'õ', 'i', 'n'], 195, 9),
    among!(['s', 'õ', 'i', 't', 'e'], 195, 9),
    among!(['s', 'ö', 'ö', 'b'], -1, 9),
    among!(['s', 'ö', 'ö', 'd'], -1, 9),
    among!(['s', 'ö', 'ö', 'd', 'a', 'k', 's', 'e'], 201, 9),
    among!(['s', 'ö', 'ö', 'd', 'i'], 201, 9),
    among!(['s', 'ö', 'ö', 'k', 's'], -1, 9),
    among!(['s', 'ö', 'ö', 'k', 's', 'i', 'd'], 204, 9),
    among!(['s', 'ö', 'ö', 'k', 's', 'i', 'm', 'e'], 204, 9),
    among!(['s', 'ö', 'ö', 'k', 's', 'i', 'n'], 204, 9),
    among!(['s', 'ö', 'ö', 'k', 's', 'i', 't', 'e'], 204, 9),
    among!(['s', 'ö', 'ö', 'm', 'a'], -1, 9),
    among!(['s', 'ö', 'ö', 'm', 'a', 't', 'a'], 209, 9),
    among!(['s', 'ö', 'ö', 'm', 'e'], -1, 9),
    among!(['s', 'ö', 'ö', 'n'], -1, 9),
    among!(['s', 'ö', 'ö', 't', 'e'], -1, 9),
    among!(['s', 'ö', 'ö', 'v', 'a', 'd'], -1, 9),
    among!(['s', 'ü', 'ü', 'a'], -1, 9),
    among!(['s', 'ü', 'ü', 'a', 'k', 's', 'e'], 215, 9),
    among!(['t', 'e', 'e', 'b'], -1, 17),
    among!(['t', 'e', 'e', 'd'], -1, 17),
    among!(['t', 'e', 'e', 'k', 's'], -1, 17),
    among!(['t', 'e', 'e', 'k', 's', 'i', 'd'], 219, 17),
    among!(['t', 'e', 'e', 'k', 's', 'i', 'm', 'e'], 219, 17),
    among!(['t', 'e', 'e', 'k', 's', 'i', 'n'], 219, 17),
    among!(['t', 'e', 'e', 'k', 's', 'i', 't', 'e'], 219, 17),
    among!(['t', 'e', 'e', 'm', 'e'], -1, 17),
    among!(['t', 'e', 'e', 'n'], -1, 17),
    among!(['t', 'e', 'e', 't', 'e'], -1, 17),
    among!(['t', 'e', 'e', 'v', 'a', 'd'], -1, 17),
    among!(['t', 'e', 'g', 'e', 'm', 'a'], -1, 17),
    among!(['t', 'e', 'g', 'e', 'm', 'a', 't', 'a'], 228, 17),
    among!(['t', 'e', 'h', 'a'], -1, 17),
    among!(['t', 'e', 'h', 'a', 'k', 's', 'e'], 230, 17),
    among!(['t', 'e', 'h', 't', 'i'], -1, 17),
    among!(['t', 'o', 'o', 'b'], -1, 10),
    among!(['t', 'o', 'o', 'd'], -1, 10),
    among!(['t', 'o', 'o', 'd', 'i'], 234, 10),
    among!(['t', 'o', 'o', 'k', 's'], -1, 10),
    among!(['t', 'o', 'o', 'k', 's', 'i', 'd'], 236, 10),
    among!(['t', 'o', 'o', 'k', 's', 'i', 'm', 'e'], 236, 10),
    among!(['t', 'o', 'o', 'k', 's', 'i', 'n'], 236, 10),
    among!(['t', 'o', 'o', 'k', 's', 'i', 't', 'e'], 236, 10),
    among!(['t', 'o', 'o', 'm', 'a'], -1, 10),
    among!(['t', 'o', 'o', 'm', 'a', 't', 'a'], 241, 10),
    among!(['t', 'o', 'o', 'm', 'e'], -1, 10),
    among!(['t', 'o', 'o', 'n'], -1, 10),
    among!(['t', 'o', 'o', 't', 'e'], -1, 10),
    among!(['t', 'o', 'o', 'v', 'a', 'd'], -1, 10),
    among!(['t', 'u', 'u', 'a'], -1, 10),
    among!(['t', 'u', 'u', 'a', 'k', 's', 'e'], 247, 10),
    among!(['t', 'õ', 'i'], -1, 10),
    among!(['t', 'õ', 'i', 'd'], 249, 10),
    among!(['t', 'õ', 'i', 'm', 'e'], 249, 10),
    among!(['t', 'õ', 'i', 'n'], 249, 10),
    among!(['t', 'õ', 'i', 't', 'e'], 249, 10),
    among!(['v', 'i', 'i', 'a'], -1, 3),
    among!(['v', 'i', 'i', 'a', 'k', 's', 'e'], 254, 3),
    among!(['v', 'i', 'i', 'b'], -1, 3),
    among!(['v', 'i', 'i', 'd'], -1, 3),
    among!(['v', 'i', 'i', 'd', 'i'], 257, 3),
    among!(['v', 'i', 'i', 'k', 's'], -1, 3),
    among!(['v', 'i', 'i', 'k', 's', 'i', 'd'], 259, 3),
    among!(['v', 'i', 'i', 'k', 's', 'i', 'm', 'e'], 259, 3),
    among!(['v', 'i', 'i', 'k', 's', 'i', 'n'], 259, 3),
    among!(['v', 'i', 'i', 'k', 's', 'i', 't', 'e'], 259, 3),
    among!(['v', 'i', 'i', 'm', 'a'], -1, 3),
    among!(['v', 'i', 'i', 'm', 'a', 't', 'a'], 264, 3),
    among!(['v', 'i', 'i', 'm', 'e'], -1, 3),
    among!(['v', 'i', 'i', 'n'], -1, 3),
    among!(['v', 'i', 'i', 's', 'i', 'm', 'e'], -1, 3),
    among!(['v', 'i', 'i', 's', 'i', 'n'], -1, 3),
    among!(['v', 'i', 'i', 's', 'i', 't', 'e'], -1, 3),
    among!(['v', 'i', 'i', 't', 'e'], -1, 3),
    among!(['v', 'i', 'i', 'v', 'a', 'd'], -1, 3),
    among!(['v', 'õ', 'i', 'b'], -1, 11),
    among!(['v', 'õ', 'i', 'd'], -1, 11),
    among!(['v', 'õ', 'i', 'd', 'a'], 274, 11),
    among!(['v', 'õ', 'i', 'd', 'a', 'k', 's', 'e'], 275, 11),
    among!(['v', 'õ', 'i', 'd', 'i'], 274, 11),
    among!(['v', 'õ', 'i', 'k', 's'], -1, 11),
    among!(['v', 'õ', 'i', 'k', 's', 'i', 'd'], 278, 11),
    among!(['v', 'õ', 'i', 'k', 's', 'i', 'm', 'e'], 278, 11),
    among!(['v', 'õ', 'i', 'k', 's', 'i', 'n'], 278, 11),
    among!(['v', 'õ', 'i', 'k', 's', 'i', 't', 'e'], 278, 11),
    among!(['v', 'õ', 'i', 'm', 'a'], -1, 11),
    among!(['v', 'õ', 'i', 'm', 'a', 't', 'a'], 283, 11),
    among!(['v', 'õ', 'i', 'm', 'e'], -1, 11),
    among!(['v', 'õ', 'i', 'n'], -1, 11),
    among!(['v', 'õ', 'i', 's'], -1, 11),
    among!(['v', 'õ', 'i', 't', 'e'], -1, 11),
    among!(['v', 'õ', 'i', 'v', 'a', 'd'], -1, 11),
];

/// The stemmer's state: the buffer and the program's own variables.
pub(super) struct EstonianStemmer {
    env: Env,
    i_p1: i32,
}

impl std::ops::Deref for EstonianStemmer {
    type Target = Env;
    fn deref(&self) -> &Env {
        &self.env
    }
}

impl std::ops::DerefMut for EstonianStemmer {
    fn deref_mut(&mut self) -> &mut Env {
        &mut self.env
    }
}

/// The Estonian stem of `word`.
pub fn stem(word: &str) -> String {
    let mut program = EstonianStemmer { env: Env::new(word), i_p1: 0 };
    program.stem_program();
    program.env.into_string()
}

impl EstonianStemmer {
    fn r_mark_regions(&mut self) -> bool {
        self.i_p1 = self.limit;
        if !self.go_out_grouping(G_V1) {
            return false;
        }
        self.cursor += 1;
        if !self.go_in_grouping(G_V1) {
            return false;
        }
        self.cursor += 1;
        self.i_p1 = self.cursor;
        return true;
    }

    fn r_emphasis(&mut self) -> bool {
        if self.cursor < self.i_p1 {
            return false;
        }
        let v_2 = self.limit_backward;
        self.limit_backward = self.i_p1;
        self.ket = self.cursor;
        let among_var = self.find_among_b(&A_0);
        if among_var == 0 {
            self.limit_backward = v_2;
            return false;
        }
        self.bra = self.cursor;
        self.limit_backward = v_2;
        let v_3 = self.limit - self.cursor;
        let c = self.cursor - 4;
        if c < self.limit_backward {
            return false;
        }
        self.cursor = c;
        self.cursor = self.limit - v_3;
        if among_var == 1 {
            let v_4 = self.limit - self.cursor;
            if !self.in_grouping_b(G_GI) {
                return false;
            }
            self.cursor = self.limit - v_4;
            let v_5 = self.limit - self.cursor;
            'lab0: {
                if !self.r_longv() {
                    break 'lab0;
                }
                return false;
            }
            self.cursor = self.limit - v_5;
            if !self.slice_del() {
                return false;
            }
        } else {
            if !self.in_grouping_b(G_KI) {
                return false;
            }
            if !self.slice_del() {
                return false;
            }
        }
        return true;
    }

    fn r_verb(&mut self) -> bool {
        if self.cursor < self.i_p1 {
            return false;
        }
        let v_2 = self.limit_backward;
        self.limit_backward = self.i_p1;
        self.ket = self.cursor;
        let among_var = self.find_among_b(&A_1);
        if among_var == 0 {
            self.limit_backward = v_2;
            return false;
        }
        self.bra = self.cursor;
        self.limit_backward = v_2;
        if among_var == 1 {
            if !self.slice_del() {
                return false;
            }
        } else if among_var == 2 {
            if !self.slice_from("a") {
                return false;
            }
        } else {
            if !self.in_grouping_b(G_V1) {
                return false;
            }
            if !self.slice_del() {
                return false;
            }
        }
        return true;
    }

    fn r_longv(&mut self) -> bool {
        if self.find_among_b(&A_2) == 0 {
            return false;
        }
        return true;
    }

    fn r_i_plural(&mut self) -> bool {
        if self.cursor < self.i_p1 {
            return false;
        }
        let v_2 = self.limit_backward;
        self.limit_backward = self.i_p1;
        self.ket = self.cursor;
        if self.find_among_b(&A_3) == 0 {
            self.limit_backward = v_2;
            return false;
        }
        self.bra = self.cursor;
        self.limit_backward = v_2;
        if !self.in_grouping_b(G_RV) {
            return false;
        }
        if !self.slice_del() {
            return false;
        }
        return true;
    }

    fn r_special_noun_endings(&mut self) -> bool {
        if self.cursor < self.i_p1 {
            return false;
        }
        let v_2 = self.limit_backward;
        self.limit_backward = self.i_p1;
        self.ket = self.cursor;
        let among_var = self.find_among_b(&A_4);
        if among_var == 0 {
            self.limit_backward = v_2;
            return false;
        }
        self.bra = self.cursor;
        self.limit_backward = v_2;
        if among_var == 1 {
            if !self.slice_from("lase") {
                return false;
            }
        } else if among_var == 2 {
            if !self.slice_from("mise") {
                return false;
            }
        } else {
            if !self.slice_from("lise") {
                return false;
            }
        }
        return true;
    }

    fn r_case_ending(&mut self) -> bool {
        if self.cursor < self.i_p1 {
            return false;
        }
        let v_2 = self.limit_backward;
        self.limit_backward = self.i_p1;
        self.ket = self.cursor;
        let among_var = self.find_among_b(&A_5);
        if among_var == 0 {
            self.limit_backward = v_2;
            return false;
        }
        self.bra = self.cursor;
        self.limit_backward = v_2;
        if among_var == 1 {
            'lab0: {
                let v_3 = self.limit - self.cursor;
                'lab1: {
                    if !self.in_grouping_b(G_RV) {
                        break 'lab1;
                    }
                    break 'lab0;
                }
                self.cursor = self.limit - v_3;
                if !self.r_longv() {
                    return false;
                }
            }
        } else {
            let v_4 = self.limit - self.cursor;
            let c = self.cursor - 4;
            if c < self.limit_backward {
                return false;
            }
            self.cursor = c;
            self.cursor = self.limit - v_4;
        }
        if !self.slice_del() {
            return false;
        }
        return true;
    }

    fn r_plural_three_first_cases(&mut self) -> bool {
        if self.cursor < self.i_p1 {
            return false;
        }
        let v_2 = self.limit_backward;
        self.limit_backward = self.i_p1;
        self.ket = self.cursor;
        let among_var = self.find_among_b(&A_7);
        if among_var == 0 {
            self.limit_backward = v_2;
            return false;
        }
        self.bra = self.cursor;
        self.limit_backward = v_2;
        if among_var == 1 {
            if !self.slice_from("iku") {
                return false;
            }
        } else if among_var == 2 {
            let v_3 = self.limit - self.cursor;
            'lab0: {
                if !self.r_longv() {
                    break 'lab0;
                }
                return false;
            }
            self.cursor = self.limit - v_3;
            if !self.slice_del() {
                return false;
            }
        } else if among_var == 3 {
            'lab1: {
                let v_4 = self.limit - self.cursor;
                'lab2: {
                    let v_5 = self.limit - self.cursor;
                    let c = self.cursor - 4;
                    if c < self.limit_backward {
                        break 'lab2;
                    }
                    self.cursor = c;
                    self.cursor = self.limit - v_5;
                    let among_var = self.find_among_b(&A_6);
                    if among_var == 1 {
                        if !self.slice_from("e") {
                            return false;
                        }
                    } else if among_var == 2 {
                        if !self.slice_del() {
                            return false;
                        }
                    }
                    break 'lab1;
                }
                self.cursor = self.limit - v_4;
                if !self.slice_from("t") {
                    return false;
                }
            }
        } else {
            'lab3: {
                let v_6 = self.limit - self.cursor;
                'lab4: {
                    if !self.in_grouping_b(G_RV) {
                        break 'lab4;
                    }
                    break 'lab3;
                }
                self.cursor = self.limit - v_6;
                if !self.r_longv() {
                    return false;
                }
            }
            if !self.slice_del() {
                return false;
            }
        }
        return true;
    }

    fn r_nu(&mut self) -> bool {
        if self.cursor < self.i_p1 {
            return false;
        }
        let v_2 = self.limit_backward;
        self.limit_backward = self.i_p1;
        self.ket = self.cursor;
        if self.find_among_b(&A_8) == 0 {
            self.limit_backward = v_2;
            return false;
        }
        self.bra = self.cursor;
        self.limit_backward = v_2;
        if !self.slice_del() {
            return false;
        }
        return true;
    }

    fn r_undouble_kpt(&mut self) -> bool {
        if !self.in_grouping_b(G_V1) {
            return false;
        }
        if self.i_p1 > self.cursor {
            return false;
        }
        self.ket = self.cursor;
        let among_var = self.find_among_b(&A_9);
        if among_var == 0 {
            return false;
        }
        self.bra = self.cursor;
        if among_var == 1 {
            if !self.slice_from("k") {
                return false;
            }
        } else if among_var == 2 {
            if !self.slice_from("p") {
                return false;
            }
        } else {
            if !self.slice_from("t") {
                return false;
            }
        }
        return true;
    }

    fn r_degrees(&mut self) -> bool {
        if self.cursor < self.i_p1 {
            return false;
        }
        let v_2 = self.limit_backward;
        self.limit_backward = self.i_p1;
        self.ket = self.cursor;
        let among_var = self.find_among_b(&A_10);
        if among_var == 0 {
            self.limit_backward = v_2;
            return false;
        }
        self.bra = self.cursor;
        self.limit_backward = v_2;
        if among_var == 1 {
            if !self.in_grouping_b(G_RV) {
                return false;
            }
            if !self.slice_del() {
                return false;
            }
        } else {
            if !self.slice_del() {
                return false;
            }
        }
        return true;
    }

    fn r_substantive(&mut self) -> bool {
        let v_1 = self.limit - self.cursor;
        self.r_special_noun_endings();
        self.cursor = self.limit - v_1;
        let v_2 = self.limit - self.cursor;
        self.r_case_ending();
        self.cursor = self.limit - v_2;
        let v_3 = self.limit - self.cursor;
        self.r_plural_three_first_cases();
        self.cursor = self.limit - v_3;
        let v_4 = self.limit - self.cursor;
        self.r_degrees();
        self.cursor = self.limit - v_4;
        let v_5 = self.limit - self.cursor;
        self.r_i_plural();
        self.cursor = self.limit - v_5;
        let v_6 = self.limit - self.cursor;
        self.r_nu();
        self.cursor = self.limit - v_6;
        return true;
    }

    fn r_verb_exceptions(&mut self) -> bool {
        self.bra = self.cursor;
        let among_var = self.find_among(&A_11);
        if among_var == 0 {
            return false;
        }
        self.ket = self.cursor;
        if self.cursor < self.limit {
            return false;
        }
        if among_var == 1 {
            if !self.slice_from("joo") {
                return false;
            }
        } else if among_var == 2 {
            if !self.slice_from("saa") {
                return false;
            }
        } else if among_var == 3 {
            if !self.slice_from("viima") {
                return false;
            }
        } else if among_var == 4 {
            if !self.slice_from("keesi") {
                return false;
            }
        } else if among_var == 5 {
            if !self.slice_from("löö") {
                return false;
            }
        } else if among_var == 6 {
            if !self.slice_from("lõi") {
                return false;
            }
        } else if among_var == 7 {
            if !self.slice_from("loo") {
                return false;
            }
        } else if among_var == 8 {
            if !self.slice_from("käisi") {
                return false;
            }
        } else if among_var == 9 {
            if !self.slice_from("söö") {
                return false;
            }
        } else if among_var == 10 {
            if !self.slice_from("too") {
                return false;
            }
        } else if among_var == 11 {
            if !self.slice_from("võisi") {
                return false;
            }
        } else if among_var == 12 {
            if !self.slice_from("jääma") {
                return false;
            }
        } else if among_var == 13 {
            if !self.slice_from("müüsi") {
                return false;
            }
        } else if among_var == 14 {
            if !self.slice_from("luge") {
                return false;
            }
        } else if among_var == 15 {
            if !self.slice_from("põde") {
                return false;
            }
        } else if among_var == 16 {
            if !self.slice_from("ladu") {
                return false;
            }
        } else if among_var == 17 {
            if !self.slice_from("tegi") {
                return false;
            }
        } else {
            if !self.slice_from("nägi") {
                return false;
            }
        }
        return true;
    }

    fn stem_program(&mut self) -> bool {
        let v_1 = self.cursor;
        'lab0: {
            if !self.r_verb_exceptions() {
                break 'lab0;
            }
            return false;
        }
        self.cursor = v_1;
        let v_2 = self.cursor;
        self.r_mark_regions();
        self.cursor = v_2;
        self.limit_backward = self.cursor;
        self.cursor = self.limit;
        let v_3 = self.limit - self.cursor;
        self.r_emphasis();
        self.cursor = self.limit - v_3;
        let v_4 = self.limit - self.cursor;
        'lab1: {
            'lab2: {
                let v_5 = self.limit - self.cursor;
                'lab3: {
                    if !self.r_verb() {
                        break 'lab3;
                    }
                    break 'lab2;
                }
                self.cursor = self.limit - v_5;
                self.r_substantive();
            }
        }
        self.cursor = self.limit - v_4;
        let v_6 = self.limit - self.cursor;
        self.r_undouble_kpt();
        self.cursor = self.limit - v_6;
        self.cursor = self.limit_backward;
        return true;
    }
}
