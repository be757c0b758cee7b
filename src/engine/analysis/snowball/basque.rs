//! Snowball's Basque stemmer, transcribed from the code the Snowball compiler generates for
//! `basque.sbl` (as Lucene's `org.tartarus.snowball.ext.BasqueStemmer`) by
//! `tests/golden/analysis/snowball/py2rust.py`; runs on [`super::env::Env`].

#![allow(clippy::all, unused_parens, unused_variables, unused_labels)]

use super::among;
use super::env::{Among, Env};

const G_V: &[u16] = &['a' as u16, 'e' as u16, 'i' as u16, 'o' as u16, 'u' as u16];

static A_0: [Among; 109] = [
    among!(['i', 'd', 'e', 'a'], -1, 1),
    among!(['b', 'i', 'd', 'e', 'a'], 0, 1),
    among!(['k', 'i', 'd', 'e', 'a'], 0, 1),
    among!(['p', 'i', 'd', 'e', 'a'], 0, 1),
    among!(['k', 'u', 'n', 'd', 'e', 'a'], -1, 1),
    among!(['g', 'a', 'l', 'e', 'a'], -1, 1),
    among!(['t', 'a', 'i', 'l', 'e', 'a'], -1, 1),
    among!(['t', 'z', 'a', 'i', 'l', 'e', 'a'], -1, 1),
    among!(['g', 'u', 'n', 'e', 'a'], -1, 1),
    among!(['k', 'u', 'n', 'e', 'a'], -1, 1),
    among!(['t', 'z', 'a', 'g', 'a'], -1, 1),
    among!(['g', 'a', 'i', 'a'], -1, 1),
    among!(['a', 'l', 'd', 'i', 'a'], -1, 1),
    among!(['t', 'a', 'l', 'd', 'i', 'a'], 12, 1),
    among!(['k', 'a', 'r', 'i', 'a'], -1, 1),
    among!(['g', 'a', 'r', 'r', 'i', 'a'], -1, 2),
    among!(['k', 'a', 'r', 'r', 'i', 'a'], -1, 1),
    among!(['k', 'a'], -1, 1),
    among!(['t', 'z', 'a', 'k', 'a'], 17, 1),
    among!(['l', 'a'], -1, 1),
    among!(['m', 'e', 'n', 'a'], -1, 1),
    among!(['p', 'e', 'n', 'a'], -1, 1),
    among!(['k', 'i', 'n', 'a'], -1, 1),
    among!(['e', 'z', 'i', 'n', 'a'], -1, 1),
    among!(['t', 'e', 'z', 'i', 'n', 'a'], 23, 1),
    among!(['k', 'u', 'n', 'a'], -1, 1),
    among!(['t', 'u', 'n', 'a'], -1, 1),
    among!(['k', 'i', 'z', 'u', 'n', 'a'], -1, 1),
    among!(['e', 'r', 'a'], -1, 1),
    among!(['b', 'e', 'r', 'a'], 28, 1),
    among!(['a', 'r', 'a', 'b', 'e', 'r', 'a'], 29, -1),
    among!(['k', 'e', 'r', 'a'], 28, 1),
    among!(['p', 'e', 'r', 'a'], 28, 1),
    among!(['o', 'r', 'r', 'a'], -1, 1),
    among!(['k', 'o', 'r', 'r', 'a'], 33, 1),
    among!(['d', 'u', 'r', 'a'], -1, 1),
    among!(['g', 'u', 'r', 'a'], -1, 1),
    among!(['k', 'u', 'r', 'a'], -1, 1),
    among!(['t', 'u', 'r', 'a'], -1, 1),
    among!(['e', 't', 'a'], -1, 1),
    among!(['k', 'e', 't', 'a'], 39, 1),
    among!(['g', 'a', 'i', 'l', 'u', 'a'], -1, 1),
    among!(['e', 'z', 'a'], -1, 1),
    among!(['e', 'r', 'r', 'e', 'z', 'a'], 42, 1),
    among!(['t', 'z', 'a'], -1, 2),
    among!(['g', 'a', 'i', 't', 'z', 'a'], 44, 1),
    among!(['k', 'a', 'i', 't', 'z', 'a'], 44, 1),
    among!(['k', 'u', 'n', 't', 'z', 'a'], 44, 1),
    among!(['i', 'd', 'e'], -1, 1),
    among!(['b', 'i', 'd', 'e'], 48, 1),
    among!(['k', 'i', 'd', 'e'], 48, 1),
    among!(['p', 'i', 'd', 'e'], 48, 1),
    among!(['k', 'u', 'n', 'd', 'e'], -1, 1),
    among!(['t', 'z', 'a', 'k', 'e'], -1, 1),
    among!(['t', 'z', 'e', 'k', 'e'], -1, 1),
    among!(['l', 'e'], -1, 1),
    among!(['g', 'a', 'l', 'e'], 55, 1),
    among!(['t', 'a', 'i', 'l', 'e'], 55, 1),
    among!(['t', 'z', 'a', 'i', 'l', 'e'], 55, 1),
    among!(['g', 'u', 'n', 'e'], -1, 1),
    among!(['k', 'u', 'n', 'e'], -1, 1),
    among!(['t', 'z', 'e'], -1, 1),
    among!(['a', 't', 'z', 'e'], 61, 1),
    among!(['g', 'a', 'i'], -1, 1),
    among!(['a', 'l', 'd', 'i'], -1, 1),
    among!(['t', 'a', 'l', 'd', 'i'], 64, 1),
    among!(['k', 'i'], -1, 1),
    among!(['a', 'r', 'i'], -1, 1),
    among!(['k', 'a', 'r', 'i'], 67, 1),
    among!(['l', 'a', 'r', 'i'], 67, 1),
    among!(['t', 'a', 'r', 'i'], 67, 1),
    among!(['e', 't', 'a', 'r', 'i'], 70, 1),
    among!(['g', 'a', 'r', 'r', 'i'], -1, 2),
    among!(['k', 'a', 'r', 'r', 'i'], -1, 1),
    among!(['a', 'r', 'a', 'z', 'i'], -1, 1),
    among!(['t', 'a', 'r', 'a', 'z', 'i'], 74, 1),
    among!(['a', 'n'], -1, 1),
    among!(['e', 'a', 'n'], 76, 1),
    among!(['r', 'e', 'a', 'n'], 77, 1),
    among!(['k', 'a', 'n'], 76, 1),
    among!(['e', 't', 'a', 'n'], 76, 1),
    among!(['a', 't', 's', 'e', 'd', 'e', 'n'], -1, -1),
    among!(['m', 'e', 'n'], -1, 1),
    among!(['p', 'e', 'n'], -1, 1),
    among!(['k', 'i', 'n'], -1, 1),
    among!(['r', 'e', 'k', 'i', 'n'], 84, 1),
    among!(['e', 'z', 'i', 'n'], -1, 1),
    among!(['t', 'e', 'z', 'i', 'n'], 86, 1),
    among!(['t', 'u', 'n'], -1, 1),
    among!(['k', 'i', 'z', 'u', 'n'], -1, 1),
    among!(['g', 'o'], -1, 1),
    among!(['a', 'g', 'o'], 90, 1),
    among!(['t', 'i', 'o'], -1, 1),
    among!(['d', 'a', 'k', 'o'], -1, 1),
    among!(['o', 'r'], -1, 1),
    among!(['k', 'o', 'r'], 94, 1),
    among!(['t', 'z', 'a', 't'], -1, 1),
    among!(['d', 'u'], -1, 1),
    among!(['g', 'a', 'i', 'l', 'u'], -1, 1),
    among!(['t', 'u'], -1, 1),
    among!(['a', 't', 'u'], 99, 1),
    among!(['a', 'l', 'd', 'a', 't', 'u'], 100, 1),
    among!(['t', 'a', 't', 'u'], 100, 1),
    among!(['b', 'a', 'd', 'i', 't', 'u'], 99, -1),
    among!(['e', 'z'], -1, 1),
    among!(['e', 'r', 'r', 'e', 'z'], 104, 1),
    among!(['t', 'z', 'e', 'z'], 104, 1),
    among!(['g', 'a', 'i', 't', 'z'], -1, 1),
    among!(['k', 'a', 'i', 't', 'z'], -1, 1),
];

static A_1: [Among; 295] = [
    among!(['a', 'd', 'a'], -1, 1),
    among!(['k', 'a', 'd', 'a'], 0, 1),
    among!(['a', 'n', 'd', 'a'], -1, 1),
    among!(['d', 'e', 'n', 'd', 'a'], -1, 1),
    among!(['g', 'a', 'b', 'e', 'a'], -1, 1),
    among!(['k', 'a', 'b', 'e', 'a'], -1, 1),
    among!(['a', 'l', 'd', 'e', 'a'], -1, 1),
    among!(['k', 'a', 'l', 'd', 'e', 'a'], 6, 1),
    among!(['t', 'a', 'l', 'd', 'e', 'a'], 6, 1),
    among!(['o', 'r', 'd', 'e', 'a'], -1, 1),
    among!(['z', 'a', 'l', 'e', 'a'], -1, 1),
    among!(['t', 'z', 'a', 'l', 'e', 'a'], 10, 1),
    among!(['g', 'i', 'l', 'e', 'a'], -1, 1),
    among!(['e', 'm', 'e', 'a'], -1, 1),
    among!(['k', 'u', 'm', 'e', 'a'], -1, 1),
    among!(['n', 'e', 'a'], -1, 1),
    among!(['e', 'n', 'e', 'a'], 15, 1),
    among!(['z', 'i', 'o', 'n', 'e', 'a'], 15, 1),
    among!(['u', 'n', 'e', 'a'], 15, 1),
    among!(['g', 'u', 'n', 'e', 'a'], 18, 1),
    among!(['p', 'e', 'a'], -1, 1),
    among!(['a', 'u', 'r', 'r', 'e', 'a'], -1, 1),
    among!(['t', 'e', 'a'], -1, 1),
    among!(['k', 'o', 't', 'e', 'a'], 22, 1),
    among!(['a', 'r', 't', 'e', 'a'], 22, 1),
    among!(['o', 's', 't', 'e', 'a'], 22, 1),
    among!(['e', 't', 'x', 'e', 'a'], -1, 1),
    among!(['g', 'a'], -1, 1),
    among!(['a', 'n', 'g', 'a'], 27, 1),
    among!(['g', 'a', 'i', 'a'], -1, 1),
    among!(['a', 'l', 'd', 'i', 'a'], -1, 1),
    among!(['t', 'a', 'l', 'd', 'i', 'a'], 30, 1),
    among!(['h', 'a', 'n', 'd', 'i', 'a'], -1, 1),
    among!(['m', 'e', 'n', 'd', 'i', 'a'], -1, 1),
    among!(['g', 'e', 'i', 'a'], -1, 1),
    among!(['e', 'g', 'i', 'a'], -1, 1),
    among!(['d', 'e', 'g', 'i', 'a'], 35, 1),
    among!(['t', 'e', 'g', 'i', 'a'], 35, 1),
    among!(['n', 'a', 'h', 'i', 'a'], -1, 1),
    among!(['o', 'h', 'i', 'a'], -1, 1),
    among!(['k', 'i', 'a'], -1, 1),
    among!(['t', 'o', 'k', 'i', 'a'], 40, 1),
    among!(['o', 'i', 'a'], -1, 1),
    among!(['k', 'o', 'i', 'a'], 42, 1),
    among!(['a', 'r', 'i', 'a'], -1, 1),
    among!(['k', 'a', 'r', 'i', 'a'], 44, 1),
    among!(['l', 'a', 'r', 'i', 'a'], 44, 1),
    among!(['t', 'a', 'r', 'i', 'a'], 44, 1),
    among!(['e', 'r', 'i', 'a'], -1, 1),
    among!(['k', 'e', 'r', 'i', 'a'], 48, 1),
    among!(['t', 'e', 'r', 'i', 'a'], 48, 1),
    among!(['g', 'a', 'r', 'r', 'i', 'a'], -1, 2),
    among!(['l', 'a', 'r', 'r', 'i', 'a'], -1, 1),
    among!(['k', 'i', 'r', 'r', 'i', 'a'], -1, 1),
    among!(['d', 'u', 'r', 'i', 'a'], -1, 1),
    among!(['a', 's', 'i', 'a'], -1, 1),
    among!(['t', 'i', 'a'], -1, 1),
    among!(['e', 'z', 'i', 'a'], -1, 1),
    among!(['b', 'i', 'z', 'i', 'a'], -1, 1),
    among!(['o', 'n', 't', 'z', 'i', 'a'], -1, 1),
    among!(['k', 'a'], -1, 1),
    among!(['j', 'o', 'k', 'a'], 60, 3),
    among!(['a', 'u', 'r', 'k', 'a'], 60, -1),
    among!(['s', 'k', 'a'], 60, 1),
    among!(['x', 'k', 'a'], 60, 1),
    among!(['z', 'k', 'a'], 60, 1),
    among!(['g', 'i', 'b', 'e', 'l', 'a'], -1, 1),
    among!(['g', 'e', 'l', 'a'], -1, 1),
    among!(['k', 'a', 'i', 'l', 'a'], -1, 1),
    among!(['s', 'k', 'i', 'l', 'a'], -1, 1),
    among!(['t', 'i', 'l', 'a'], -1, 1),
    among!(['o', 'l', 'a'], -1, 1),
    among!(['n', 'a'], -1, 1),
    among!(['k', 'a', 'n', 'a'], 72, 1),
    among!(['e', 'n', 'a'], 72, 1),
    among!(['g', 'a', 'r', 'r', 'e', 'n', 'a'], 74, 1),
    among!(['g', 'e', 'r', 'r', 'e', 'n', 'a'], 74, 1),
    among!(['u', 'r', 'r', 'e', 'n', 'a'], 74, 1),
    among!(['z', 'a', 'i', 'n', 'a'], 72, 1),
    among!(['t', 'z', 'a', 'i', 'n', 'a'], 78, 1),
    among!(['k', 'i', 'n', 'a'], 72, 1),
    among!(['m', 'i', 'n', 'a'], 72, 1),
    among!(['g', 'a', 'r', 'n', 'a'], 72, 1),
    among!(['u', 'n', 'a'], 72, 1),
    among!(['d', 'u', 'n', 'a'], 83, 1),
    among!(['a', 's', 'u', 'n', 'a'], 83, 1),
    among!(['t', 'a', 's', 'u', 'n', 'a'], 85, 1),
    among!(['o', 'n', 'd', 'o', 'a'], -1, 1),
    among!(['k', 'o', 'n', 'd', 'o', 'a'], 87, 1),
    among!(['n', 'g', 'o', 'a'], -1, 1),
    among!(['z', 'i', 'o', 'a'], -1, 1),
    among!(['k', 'o', 'a'], -1, 1),
    among!(['t', 'a', 'k', 'o', 'a'], 91, 1),
    among!(['z', 'k', 'o', 'a'], 91, 1),
    among!(['n', 'o', 'a'], -1, 1),
    among!(['z', 'i', 'n', 'o', 'a'], 94, 1),
    among!(['a', 'r', 'o', 'a'], -1, 1),
    among!(['t', 'a', 'r', 'o', 'a'], 96, 1),
    among!(['z', 'a', 'r', 'o', 'a'], 96, 1),
    among!(['e', 'r', 'o', 'a'], -1, 1),
    among!(['o', 'r', 'o', 'a'], -1, 1),
    among!(['o', 's', 'o', 'a'], -1, 1),
    among!(['t', 'o', 'a'], -1, 1),
    among!(['t', 't', 'o', 'a'], 102, 1),
    among!(['z', 't', 'o', 'a'], 102, 1),
    among!(['t', 'x', 'o', 'a'], -1, 1),
    among!(['t', 'z', 'o', 'a'], -1, 1),
    among!(['ñ', 'o', 'a'], -1, 1),
    among!(['r', 'a'], -1, 1),
    among!(['a', 'r', 'a'], 108, 1),
    among!(['d', 'a', 'r', 'a'], 109, 1),
    among!(['l', 'i', 'a', 'r', 'a'], 109, 1),
    among!(['t', 'i', 'a', 'r', 'a'], 109, 1),
    among!(['t', 'a', 'r', 'a'], 109, 1),
    among!(['e', 't', 'a', 'r', 'a'], 113, 1),
    among!(['t', 'z', 'a', 'r', 'a'], 109, 1),
    among!(['b', 'e', 'r', 'a'], 108, 1),
    among!(['k', 'e', 'r', 'a'], 108, 1),
    among!(['p', 'e', 'r', 'a'], 108, 1),
    among!(['o', 'r', 'a'], 108, 2),
    among!(['t', 'z', 'a', 'r', 'r', 'a'], 108, 1),
    among!(['k', 'o', 'r', 'r', 'a'], 108, 1),
    among!(['t', 'r', 'a'], 108, 1),
    among!(['s', 'a'], -1, 1),
    among!(['o', 's', 'a'], 123, 1),
    among!(['t', 'a'], -1, 1),
    among!(['e', 't', 'a'], 125, 1),
    among!(['k', 'e', 't', 'a'], 126, 1),
    among!(['s', 't', 'a'], 125, 1),
    among!(['d', 'u', 'a'], -1, 1),
    among!(['m', 'e', 'n', 'd', 'u', 'a'], 129, 1),
    among!(['o', 'r', 'd', 'u', 'a'], 129, 1),
    among!(['l', 'e', 'k', 'u', 'a'], -1, 1),
    among!(['b', 'u', 'r', 'u', 'a'], -1, 1),
    among!(['d', 'u', 'r', 'u', 'a'], -1, 1),
    among!(['t', 's', 'u', 'a'], -1, 1),
    among!(['t', 'u', 'a'], -1, 1),
    among!(['m', 'e', 'n', 't', 'u', 'a'], 136, 1),
    among!(['e', 's', 't', 'u', 'a'], 136, 1),
    among!(['t', 'x', 'u', 'a'], -1, 1),
    among!(['z', 'u', 'a'], -1, 1),
    among!(['t', 'z', 'u', 'a'], 140, 1),
    among!(['z', 'a'], -1, 1),
    among!(['e', 'z', 'a'], 142, 1),
    among!(['e', 'r', 'o', 'z', 'a'], 142, 1),
    among!(['t', 'z', 'a'], 142, 2),
    among!(['k', 'o', 'i', 't', 'z', 'a'], 145, 1),
    among!(['a', 'n', 't', 'z', 'a'], 145, 1),
    among!(['g', 'i', 'n', 't', 'z', 'a'], 145, 1),
    among!(['k', 'i', 'n', 't', 'z', 'a'], 145, 1),
    among!(['k', 'u', 'n', 't', 'z', 'a'], 145, 1),
    among!(['g', 'a', 'b', 'e'], -1, 1),
    among!(['k', 'a', 'b', 'e'], -1, 1),
    among!(['k', 'i', 'd', 'e'], -1, 1),
    among!(['a', 'l', 'd', 'e'], -1, 1),
    among!(['k', 'a', 'l', 'd', 'e'], 154, 1),
    among!(['t', 'a', 'l', 'd', 'e'], 154, 1),
    among!(['o', 'r', 'd', 'e'], -1, 1),
    among!(['g', 'e'], -1, 1),
    among!(['z', 'a', 'l', 'e'], -1, 1),
    among!(['t', 'z', 'a', 'l', 'e'], 159, 1),
    among!(['g', 'i', 'l', 'e'], -1, 1),
    among!(['e', 'm', 'e'], -1, 1),
    among!(['k', 'u', 'm', 'e'], -1, 1),
    among!(['n', 'e'], -1, 1),
    among!(['z', 'i', 'o', 'n', 'e'], 164, 1),
    among!(['u', 'n', 'e'], 164, 1),
    among!(['g', 'u', 'n', 'e'], 166, 1),
    among!(['p', 'e'], -1, 1),
    among!(['a', 'u', 'r', 'r', 'e'], -1, 1),
    among!(['t', 'e'], -1, 1),
    among!(['k', 'o', 't', 'e'], 170, 1),
    among!(['a', 'r', 't', 'e'], 170, 1),
    among!(['o', 's', 't', 'e'], 170, 1),
    among!(['e', 't', 'x', 'e'], -1, 1),
    among!(['g', 'a', 'i'], -1, 1),
    among!(['d', 'i'], -1, 1),
    among!(['a', 'l', 'd', 'i'], 176, 1),
    among!(['t', 'a', 'l', 'd', 'i'], 177, 1),
    among!(['g', 'e', 'l', 'd', 'i'], 176, -1),
    among!(['h', 'a', 'n', 'd', 'i'], 176, 1),
    among!(['m', 'e', 'n', 'd', 'i'], 176, 1),
    among!(['g', 'e', 'i'], -1, 1),
    among!(['e', 'g', 'i'], -1, 1),
    among!(['d', 'e', 'g', 'i'], 183, 1),
    among!(['t', 'e', 'g', 'i'], 183, 1),
    among!(['n', 'a', 'h', 'i'], -1, 1),
    among!(['o', 'h', 'i'], -1, 1),
    among!(['k', 'i'], -1, 1),
    among!(['t', 'o', 'k', 'i'], 188, 1),
    among!(['o', 'i'], -1, 1),
    among!(['g', 'o', 'i'], 190, 1),
    among!(['k', 'o', 'i'], 190, 1),
    among!(['a', 'r', 'i'], -1, 1),
    among!(['k', 'a', 'r', 'i'], 193, 1),
    among!(['l', 'a', 'r', 'i'], 193, 1),
    among!(['t', 'a', 'r', 'i'], 193, 1),
    among!(['g', 'a', 'r', 'r', 'i'], -1, 2),
    among!(['l', 'a', 'r', 'r', 'i'], -1, 1),
    among!(['k', 'i', 'r', 'r', 'i'], -1, 1),
    among!(['d', 'u', 'r', 'i'], -1, 1),
    among!(['a', 's', 'i'], -1, 1),
    among!(['t', 'i'], -1, 1),
    among!(['o', 'n', 't', 'z', 'i'], -1, 1),
    among!(['ñ', 'i'], -1, 1),
    among!(['a', 'k'], -1, 1),
    among!(['e', 'k'], -1, 1),
    among!(['t', 'a', 'r', 'i', 'k'], -1, 1),
    among!(['g', 'i', 'b', 'e', 'l'], -1, 1),
    among!(['a', 'i', 'l'], -1, 1),
    among!(['k', 'a', 'i', 'l'], 209, 1),
    among!(['k', 'a', 'n'], -1, 1),
    among!(['t', 'a', 'n'], -1, 1),
    among!(['e', 't', 'a', 'n'], 212, 1),
    among!(['e', 'n'], -1, 4),
    among!(['r', 'e', 'n'], 214, 2),
    among!(['g', 'a', 'r', 'r', 'e', 'n'], 215, 1),
    among!(['g', 'e', 'r', 'r', 'e', 'n'], 215, 1),
    among!(['u', 'r', 'r', 'e', 'n'], 215, 1),
    among!(['t', 'e', 'n'], 214, 4),
    among!(['t', 'z', 'e', 'n'], 214, 4),
    among!(['z', 'a', 'i', 'n'], -1, 1),
    among!(['t', 'z', 'a', 'i', 'n'], 221, 1),
    among!(['k', 'i', 'n'], -1, 1),
    among!(['m', 'i', 'n'], -1, 1),
    among!(['d', 'u', 'n'], -1, 1),
    among!(['a', 's', 'u', 'n'], -1, 1),
    among!(['t', 'a', 's', 'u', 'n'], 226, 1),
    among!(['a', 'i', 'z', 'u', 'n'], -1, 1),
    among!(['o', 'n', 'd', 'o'], -1, 1),
    among!(['k', 'o', 'n', 'd', 'o'], 229, 1),
    among!(['g', 'o'], -1, 1),
    among!(['n', 'g', 'o'], 231, 1),
    among!(['z', 'i', 'o'], -1, 1),
    among!(['k', 'o'], -1, 1),
    among!(['t', 'r', 'a', 'k', 'o'], 234, 5),
    among!(['t', 'a', 'k', 'o'], 234, 1),
    among!(['e', 't', 'a', 'k', 'o'], 236, 1),
    among!(['e', 'k', 'o'], 234, 1),
    among!(['t', 'a', 'r', 'i', 'k', 'o'], 234, 1),
    among!(['s', 'k', 'o'], 234, 1),
    among!(['t', 'u', 'k', 'o'], 234, 1),
    among!(['m', 'i', 'n', 'u', 't', 'u', 'k', 'o'], 241, 6),
    among!(['z', 'k', 'o'], 234, 1),
    among!(['n', 'o'], -1, 1),
    among!(['z', 'i', 'n', 'o'], 244, 1),
    among!(['r', 'o'], -1, 1),
    among!(['a', 'r', 'o'], 246, 1),
    among!(['i', 'g', 'a', 'r', 'o'], 247, -1),
    among!(['t', 'a', 'r', 'o'], 247, 1),
    among!(['z', 'a', 'r', 'o'], 247, 1),
    among!(['e', 'r', 'o'], 246, 1),
    among!(['g', 'i', 'r', 'o'], 246, 1),
    among!(['o', 'r', 'o'], 246, 1),
    among!(['o', 's', 'o'], -1, 1),
    among!(['t', 'o'], -1, 1),
    among!(['t', 't', 'o'], 255, 1),
    among!(['z', 't', 'o'], 255, 1),
    among!(['t', 'x', 'o'], -1, 1),
    among!(['t', 'z', 'o'], -1, 1),
    among!(['g', 'i', 'n', 't', 'z', 'o'], 259, 1),
    among!(['ñ', 'o'], -1, 1),
    among!(['z', 'p'], -1, 1),
    among!(['a', 'r'], -1, 1),
    among!(['d', 'a', 'r'], 263, 1),
    among!(['b', 'e', 'h', 'a', 'r'], 263, 1),
    among!(['z', 'e', 'h', 'a', 'r'], 263, -1),
    among!(['l', 'i', 'a', 'r'], 263, 1),
    among!(['t', 'i', 'a', 'r'], 263, 1),
    among!(['t', 'a', 'r'], 263, 1),
    among!(['t', 'z', 'a', 'r'], 263, 1),
    among!(['o', 'r'], -1, 2),
    among!(['k', 'o', 'r'], 271, 1),
    among!(['o', 's'], -1, 1),
    among!(['k', 'e', 't'], -1, 1),
    among!(['d', 'u'], -1, 1),
    among!(['m', 'e', 'n', 'd', 'u'], 275, 1),
    among!(['o', 'r', 'd', 'u'], 275, 1),
    among!(['l', 'e', 'k', 'u'], -1, 1),
    among!(['b', 'u', 'r', 'u'], -1, 2),
    among!(['d', 'u', 'r', 'u'], -1, 1),
    among!(['t', 's', 'u'], -1, 1),
    among!(['t', 'u'], -1, 1),
    among!(['t', 'a', 't', 'u'], 282, 4),
    among!(['m', 'e', 'n', 't', 'u'], 282, 1),
    among!(['e', 's', 't', 'u'], 282, 1),
    among!(['t', 'x', 'u'], -1, 1),
    among!(['z', 'u'], -1, 1),
    among!(['t', 'z', 'u'], 287, 1),
    among!(['g', 'i', 'n', 't', 'z', 'u'], 288, 1),
    among!(['z'], -1, 1),
    among!(['e', 'z'], 290, 1),
    among!(['e', 'r', 'o', 'z'], 290, 1),
    among!(['t', 'z'], 290, 1),
    among!(['k', 'o', 'i', 't', 'z'], 293, 1),
];

static A_2: [Among; 19] = [
    among!(['z', 'l', 'e', 'a'], -1, 2),
    among!(['k', 'e', 'r', 'i', 'a'], -1, 1),
    among!(['l', 'a'], -1, 1),
    among!(['e', 'r', 'a'], -1, 1),
    among!(['d', 'a', 'd', 'e'], -1, 1),
    among!(['t', 'a', 'd', 'e'], -1, 1),
    among!(['d', 'a', 't', 'e'], -1, 1),
    among!(['t', 'a', 't', 'e'], -1, 1),
    among!(['g', 'i'], -1, 1),
    among!(['k', 'i'], -1, 1),
    among!(['i', 'k'], -1, 1),
    among!(['l', 'a', 'n', 'i', 'k'], 10, 1),
    among!(['r', 'i', 'k'], 10, 1),
    among!(['l', 'a', 'r', 'i', 'k'], 12, 1),
    among!(['z', 't', 'i', 'k'], 10, 1),
    among!(['g', 'o'], -1, 1),
    among!(['r', 'o'], -1, 1),
    among!(['e', 'r', 'o'], 16, 1),
    among!(['t', 'o'], -1, 1),
];

/// The stemmer's state: the buffer and the program's own variables.
pub(super) struct BasqueStemmer {
    env: Env,
    i_p2: i32,
    i_p1: i32,
    i_pv: i32,
}

impl std::ops::Deref for BasqueStemmer {
    type Target = Env;
    fn deref(&self) -> &Env {
        &self.env
    }
}

impl std::ops::DerefMut for BasqueStemmer {
    fn deref_mut(&mut self) -> &mut Env {
        &mut self.env
    }
}

/// The Basque stem of `word`.
pub fn stem(word: &str) -> String {
    let mut program = BasqueStemmer { env: Env::new(word), i_p2: 0, i_p1: 0, i_pv: 0 };
    program.stem_program();
    program.env.into_string()
}

impl BasqueStemmer {
    fn r_mark_regions(&mut self) -> bool {
        self.i_pv = self.limit;
        self.i_p1 = self.limit;
        self.i_p2 = self.limit;
        let v_1 = self.cursor;
        'lab0: {
            'lab1: {
                let v_2 = self.cursor;
                'lab2: {
                    if !self.in_grouping(G_V) {
                        break 'lab2;
                    }
                    'lab3: {
                        let v_3 = self.cursor;
                        'lab4: {
                            if !self.out_grouping(G_V) {
                                break 'lab4;
                            }
                            if !self.go_out_grouping(G_V) {
                                break 'lab4;
                            }
                            self.cursor += 1;
                            break 'lab3;
                        }
                        self.cursor = v_3;
                        if !self.in_grouping(G_V) {
                            break 'lab2;
                        }
                        if !self.go_in_grouping(G_V) {
                            break 'lab2;
                        }
                        self.cursor += 1;
                    }
                    break 'lab1;
                }
                self.cursor = v_2;
                if !self.out_grouping(G_V) {
                    break 'lab0;
                }
                'lab5: {
                    let v_4 = self.cursor;
                    'lab6: {
                        if !self.out_grouping(G_V) {
                            break 'lab6;
                        }
                        if !self.go_out_grouping(G_V) {
                            break 'lab6;
                        }
                        self.cursor += 1;
                        break 'lab5;
                    }
                    self.cursor = v_4;
                    if !self.in_grouping(G_V) {
                        break 'lab0;
                    }
                    if self.cursor >= self.limit {
                        break 'lab0;
                    }
                    self.cursor += 1;
                }
            }
            self.i_pv = self.cursor;
        }
        self.cursor = v_1;
        let v_5 = self.cursor;
        'lab7: {
            if !self.go_out_grouping(G_V) {
                break 'lab7;
            }
            self.cursor += 1;
            if !self.go_in_grouping(G_V) {
                break 'lab7;
            }
            self.cursor += 1;
            self.i_p1 = self.cursor;
            if !self.go_out_grouping(G_V) {
                break 'lab7;
            }
            self.cursor += 1;
            if !self.go_in_grouping(G_V) {
                break 'lab7;
            }
            self.cursor += 1;
            self.i_p2 = self.cursor;
        }
        self.cursor = v_5;
        return true;
    }

    fn r_rv(&mut self) -> bool {
        return self.i_pv <= self.cursor;
    }

    fn r_r2(&mut self) -> bool {
        return self.i_p2 <= self.cursor;
    }

    fn r_r1(&mut self) -> bool {
        return self.i_p1 <= self.cursor;
    }

    fn r_aditzak(&mut self) -> bool {
        self.ket = self.cursor;
        let among_var = self.find_among_b(&A_0);
        if among_var == 0 {
            return false;
        }
        self.bra = self.cursor;
        if among_var == 1 {
            if !self.r_rv() {
                return false;
            }
            if !self.slice_del() {
                return false;
            }
        } else if among_var == 2 {
            if !self.r_r2() {
                return false;
            }
            if !self.slice_del() {
                return false;
            }
        }
        return true;
    }

    fn r_izenak(&mut self) -> bool {
        self.ket = self.cursor;
        let among_var = self.find_among_b(&A_1);
        if among_var == 0 {
            return false;
        }
        self.bra = self.cursor;
        if among_var == 1 {
            if !self.r_rv() {
                return false;
            }
            if !self.slice_del() {
                return false;
            }
        } else if among_var == 2 {
            if !self.r_r2() {
                return false;
            }
            if !self.slice_del() {
                return false;
            }
        } else if among_var == 3 {
            if !self.slice_from("jok") {
                return false;
            }
        } else if among_var == 4 {
            if !self.r_r1() {
                return false;
            }
            if !self.slice_del() {
                return false;
            }
        } else if among_var == 5 {
            if !self.slice_from("tra") {
                return false;
            }
        } else if among_var == 6 {
            if !self.slice_from("minutu") {
                return false;
            }
        }
        return true;
    }

    fn r_adjetiboak(&mut self) -> bool {
        self.ket = self.cursor;
        let among_var = self.find_among_b(&A_2);
        if among_var == 0 {
            return false;
        }
        self.bra = self.cursor;
        if among_var == 1 {
            if !self.r_rv() {
                return false;
            }
            if !self.slice_del() {
                return false;
            }
        } else {
            if !self.slice_from("z") {
                return false;
            }
        }
        return true;
    }

    fn stem_program(&mut self) -> bool {
        self.r_mark_regions();
        self.limit_backward = self.cursor;
        self.cursor = self.limit;
        'loop1: loop {
            if self.out_of_fuel() {
                return false;
            }
            let v_2 = self.limit - self.cursor;
            'lab0: {
                if !self.r_aditzak() {
                    break 'lab0;
                }
                continue 'loop1;
            }
            self.cursor = self.limit - v_2;
            break 'loop1;
        }
        'loop2: loop {
            if self.out_of_fuel() {
                return false;
            }
            let v_3 = self.limit - self.cursor;
            'lab1: {
                if !self.r_izenak() {
                    break 'lab1;
                }
                continue 'loop2;
            }
            self.cursor = self.limit - v_3;
            break 'loop2;
        }
        let v_4 = self.limit - self.cursor;
        self.r_adjetiboak();
        self.cursor = self.limit - v_4;
        self.cursor = self.limit_backward;
        return true;
    }
}
