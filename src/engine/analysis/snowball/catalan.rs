//! Snowball's Catalan stemmer, transcribed from the code the Snowball compiler generates for
//! `catalan.sbl` (as Lucene's `org.tartarus.snowball.ext.CatalanStemmer`) by
//! `tests/golden/analysis/snowball/py2rust.py`; runs on [`super::env::Env`].

#![allow(clippy::all, unused_parens, unused_variables, unused_labels)]

use super::among;
use super::env::{Among, Env};

const G_V: &[u16] = &[
    'a' as u16,
    'e' as u16,
    'i' as u16,
    'o' as u16,
    'u' as u16,
    'à' as u16,
    'á' as u16,
    'è' as u16,
    'é' as u16,
    'í' as u16,
    'ï' as u16,
    'ò' as u16,
    'ó' as u16,
    'ú' as u16,
    'ü' as u16,
];

static A_0: [Among; 13] = [
    among!([], -1, 7),
    among!(['·'], 0, 6),
    among!(['à'], 0, 1),
    among!(['á'], 0, 1),
    among!(['è'], 0, 2),
    among!(['é'], 0, 2),
    among!(['ì'], 0, 3),
    among!(['í'], 0, 3),
    among!(['ï'], 0, 3),
    among!(['ò'], 0, 4),
    among!(['ó'], 0, 4),
    among!(['ú'], 0, 5),
    among!(['ü'], 0, 5),
];

static A_1: [Among; 39] = [
    among!(['l', 'a'], -1, 1),
    among!(['-', 'l', 'a'], 0, 1),
    among!(['s', 'e', 'l', 'a'], 0, 1),
    among!(['l', 'e'], -1, 1),
    among!(['m', 'e'], -1, 1),
    among!(['-', 'm', 'e'], 4, 1),
    among!(['s', 'e'], -1, 1),
    among!(['-', 't', 'e'], -1, 1),
    among!(['h', 'i'], -1, 1),
    among!(['\'', 'h', 'i'], 8, 1),
    among!(['l', 'i'], -1, 1),
    among!(['-', 'l', 'i'], 10, 1),
    among!(['\'', 'l'], -1, 1),
    among!(['\'', 'm'], -1, 1),
    among!(['-', 'm'], -1, 1),
    among!(['\'', 'n'], -1, 1),
    among!(['-', 'n'], -1, 1),
    among!(['h', 'o'], -1, 1),
    among!(['\'', 'h', 'o'], 17, 1),
    among!(['l', 'o'], -1, 1),
    among!(['s', 'e', 'l', 'o'], 19, 1),
    among!(['\'', 's'], -1, 1),
    among!(['l', 'a', 's'], -1, 1),
    among!(['s', 'e', 'l', 'a', 's'], 22, 1),
    among!(['l', 'e', 's'], -1, 1),
    among!(['-', 'l', 'e', 's'], 24, 1),
    among!(['\'', 'l', 's'], -1, 1),
    among!(['-', 'l', 's'], -1, 1),
    among!(['\'', 'n', 's'], -1, 1),
    among!(['-', 'n', 's'], -1, 1),
    among!(['e', 'n', 's'], -1, 1),
    among!(['l', 'o', 's'], -1, 1),
    among!(['s', 'e', 'l', 'o', 's'], 31, 1),
    among!(['n', 'o', 's'], -1, 1),
    among!(['-', 'n', 'o', 's'], 33, 1),
    among!(['v', 'o', 's'], -1, 1),
    among!(['u', 's'], -1, 1),
    among!(['-', 'u', 's'], 36, 1),
    among!(['\'', 't'], -1, 1),
];

static A_2: [Among; 200] = [
    among!(['i', 'c', 'a'], -1, 4),
    among!(['l', 'ó', 'g', 'i', 'c', 'a'], 0, 3),
    among!(['e', 'n', 'c', 'a'], -1, 1),
    among!(['a', 'd', 'a'], -1, 2),
    among!(['a', 'n', 'c', 'i', 'a'], -1, 1),
    among!(['e', 'n', 'c', 'i', 'a'], -1, 1),
    among!(['è', 'n', 'c', 'i', 'a'], -1, 1),
    among!(['í', 'c', 'i', 'a'], -1, 1),
    among!(['l', 'o', 'g', 'i', 'a'], -1, 3),
    among!(['i', 'n', 'i', 'a'], -1, 1),
    among!(['í', 'i', 'n', 'i', 'a'], 9, 1),
    among!(['e', 'r', 'i', 'a'], -1, 1),
    among!(['à', 'r', 'i', 'a'], -1, 1),
    among!(['a', 't', 'ò', 'r', 'i', 'a'], -1, 1),
    among!(['a', 'l', 'l', 'a'], -1, 1),
    among!(['e', 'l', 'l', 'a'], -1, 1),
    among!(['í', 'v', 'o', 'l', 'a'], -1, 1),
    among!(['i', 'm', 'a'], -1, 1),
    among!(['í', 's', 's', 'i', 'm', 'a'], 17, 1),
    among!(['q', 'u', 'í', 's', 's', 'i', 'm', 'a'], 18, 5),
    among!(['a', 'n', 'a'], -1, 1),
    among!(['i', 'n', 'a'], -1, 1),
    among!(['e', 'r', 'a'], -1, 1),
    among!(['s', 'f', 'e', 'r', 'a'], 22, 1),
    among!(['o', 'r', 'a'], -1, 1),
    among!(['d', 'o', 'r', 'a'], 24, 1),
    among!(['a', 'd', 'o', 'r', 'a'], 25, 1),
    among!(['a', 'd', 'u', 'r', 'a'], -1, 1),
    among!(['e', 's', 'a'], -1, 1),
    among!(['o', 's', 'a'], -1, 1),
    among!(['a', 's', 's', 'a'], -1, 1),
    among!(['e', 's', 's', 'a'], -1, 1),
    among!(['i', 's', 's', 'a'], -1, 1),
    among!(['e', 't', 'a'], -1, 1),
    among!(['i', 't', 'a'], -1, 1),
    among!(['o', 't', 'a'], -1, 1),
    among!(['i', 's', 't', 'a'], -1, 1),
    among!(['i', 'a', 'l', 'i', 's', 't', 'a'], 36, 1),
    among!(['i', 'o', 'n', 'i', 's', 't', 'a'], 36, 1),
    among!(['i', 'v', 'a'], -1, 1),
    among!(['a', 't', 'i', 'v', 'a'], 39, 1),
    among!(['n', 'ç', 'a'], -1, 1),
    among!(['l', 'o', 'g', 'í', 'a'], -1, 3),
    among!(['i', 'c'], -1, 4),
    among!(['í', 's', 't', 'i', 'c'], 43, 1),
    among!(['e', 'n', 'c'], -1, 1),
    among!(['e', 's', 'c'], -1, 1),
    among!(['u', 'd'], -1, 1),
    among!(['a', 't', 'g', 'e'], -1, 1),
    among!(['b', 'l', 'e'], -1, 1),
    among!(['a', 'b', 'l', 'e'], 49, 1),
    among!(['i', 'b', 'l', 'e'], 49, 1),
    among!(['i', 's', 'm', 'e'], -1, 1),
    among!(['i', 'a', 'l', 'i', 's', 'm', 'e'], 52, 1),
    among!(['i', 'o', 'n', 'i', 's', 'm', 'e'], 52, 1),
    among!(['i', 'v', 'i', 's', 'm', 'e'], 52, 1),
    among!(['a', 'i', 'r', 'e'], -1, 1),
    among!(['i', 'c', 't', 'e'], -1, 1),
    among!(['i', 's', 't', 'e'], -1, 1),
    among!(['i', 'c', 'i'], -1, 1),
    among!(['í', 'c', 'i'], -1, 1),
    among!(['l', 'o', 'g', 'i'], -1, 3),
    among!(['a', 'r', 'i'], -1, 1),
    among!(['t', 'o', 'r', 'i'], -1, 1),
    among!(['a', 'l'], -1, 1),
    among!(['i', 'l'], -1, 1),
    among!(['a', 'l', 'l'], -1, 1),
    among!(['e', 'l', 'l'], -1, 1),
    among!(['í', 'v', 'o', 'l'], -1, 1),
    among!(['i', 's', 'a', 'm'], -1, 1),
    among!(['i', 's', 's', 'e', 'm'], -1, 1),
    among!(['ì', 's', 's', 'e', 'm'], -1, 1),
    among!(['í', 's', 's', 'e', 'm'], -1, 1),
    among!(['í', 's', 's', 'i', 'm'], -1, 1),
    among!(['q', 'u', 'í', 's', 's', 'i', 'm'], 73, 5),
    among!(['a', 'm', 'e', 'n'], -1, 1),
    among!(['ì', 's', 's', 'i', 'n'], -1, 1),
    among!(['a', 'r'], -1, 1),
    among!(['i', 'f', 'i', 'c', 'a', 'r'], 77, 1),
    among!(['e', 'g', 'a', 'r'], 77, 1),
    among!(['e', 'j', 'a', 'r'], 77, 1),
    among!(['i', 't', 'a', 'r'], 77, 1),
    among!(['i', 't', 'z', 'a', 'r'], 77, 1),
    among!(['f', 'e', 'r'], -1, 1),
    among!(['o', 'r'], -1, 1),
    among!(['d', 'o', 'r'], 84, 1),
    among!(['d', 'u', 'r'], -1, 1),
    among!(['d', 'o', 'r', 'a', 's'], -1, 1),
    among!(['i', 'c', 's'], -1, 4),
    among!(['l', 'ó', 'g', 'i', 'c', 's'], 88, 3),
    among!(['u', 'd', 's'], -1, 1),
    among!(['n', 'c', 'e', 's'], -1, 1),
    among!(['a', 'd', 'e', 's'], -1, 2),
    among!(['a', 'n', 'c', 'i', 'e', 's'], -1, 1),
    among!(['e', 'n', 'c', 'i', 'e', 's'], -1, 1),
    among!(['è', 'n', 'c', 'i', 'e', 's'], -1, 1),
    among!(['í', 'c', 'i', 'e', 's'], -1, 1),
    among!(['l', 'o', 'g', 'i', 'e', 's'], -1, 3),
    among!(['i', 'n', 'i', 'e', 's'], -1, 1),
    among!(['í', 'n', 'i', 'e', 's'], -1, 1),
    among!(['e', 'r', 'i', 'e', 's'], -1, 1),
    among!(['à', 'r', 'i', 'e', 's'], -1, 1),
    among!(['a', 't', 'ò', 'r', 'i', 'e', 's'], -1, 1),
    among!(['b', 'l', 'e', 's'], -1, 1),
    among!(['a', 'b', 'l', 'e', 's'], 103, 1),
    among!(['i', 'b', 'l', 'e', 's'], 103, 1),
    among!(['i', 'm', 'e', 's'], -1, 1),
    among!(['í', 's', 's', 'i', 'm', 'e', 's'], 106, 1),
    among!(['q', 'u', 'í', 's', 's', 'i', 'm', 'e', 's'], 107, 5),
    among!(['f', 'o', 'r', 'm', 'e', 's'], -1, 1),
    among!(['i', 's', 'm', 'e', 's'], -1, 1),
    among!(['i', 'a', 'l', 'i', 's', 'm', 'e', 's'], 110, 1),
    among!(['i', 'n', 'e', 's'], -1, 1),
    among!(['e', 'r', 'e', 's'], -1, 1),
    among!(['o', 'r', 'e', 's'], -1, 1),
    among!(['d', 'o', 'r', 'e', 's'], 114, 1),
    among!(['i', 'd', 'o', 'r', 'e', 's'], 115, 1),
    among!(['d', 'u', 'r', 'e', 's'], -1, 1),
    among!(['e', 's', 'e', 's'], -1, 1),
    among!(['o', 's', 'e', 's'], -1, 1),
    among!(['a', 's', 's', 'e', 's'], -1, 1),
    among!(['i', 'c', 't', 'e', 's'], -1, 1),
    among!(['i', 't', 'e', 's'], -1, 1),
    among!(['o', 't', 'e', 's'], -1, 1),
    among!(['i', 's', 't', 'e', 's'], -1, 1),
    among!(['i', 'a', 'l', 'i', 's', 't', 'e', 's'], 124, 1),
    among!(['i', 'o', 'n', 'i', 's', 't', 'e', 's'], 124, 1),
    among!(['i', 'q', 'u', 'e', 's'], -1, 4),
    among!(['l', 'ó', 'g', 'i', 'q', 'u', 'e', 's'], 127, 3),
    among!(['i', 'v', 'e', 's'], -1, 1),
    among!(['a', 't', 'i', 'v', 'e', 's'], 129, 1),
    among!(['l', 'o', 'g', 'í', 'e', 's'], -1, 3),
    among!(['a', 'l', 'l', 'e', 'n', 'g', 'ü', 'e', 's'], -1, 1),
    among!(['i', 'c', 'i', 's'], -1, 1),
    among!(['í', 'c', 'i', 's'], -1, 1),
    among!(['l', 'o', 'g', 'i', 's'], -1, 3),
    among!(['a', 'r', 'i', 's'], -1, 1),
    among!(['t', 'o', 'r', 'i', 's'], -1, 1),
    among!(['l', 's'], -1, 1),
    among!(['a', 'l', 's'], 138, 1),
    among!(['e', 'l', 'l', 's'], 138, 1),
    among!(['i', 'm', 's'], -1, 1),
    among!(['í', 's', 's', 'i', 'm', 's'], 141, 1),
    among!(['q', 'u', 'í', 's', 's', 'i', 'm', 's'], 142, 5),
    among!(['i', 'o', 'n', 's'], -1, 1),
    among!(['c', 'i', 'o', 'n', 's'], 144, 1),
    among!(['a', 'c', 'i', 'o', 'n', 's'], 145, 2),
    among!(['e', 's', 'o', 's'], -1, 1),
    among!(['o', 's', 'o', 's'], -1, 1),
    among!(['a', 's', 's', 'o', 's'], -1, 1),
    among!(['i', 's', 's', 'o', 's'], -1, 1),
    among!(['e', 'r', 's'], -1, 1),
    among!(['o', 'r', 's'], -1, 1),
    among!(['d', 'o', 'r', 's'], 152, 1),
    among!(['a', 'd', 'o', 'r', 's'], 153, 1),
    among!(['i', 'd', 'o', 'r', 's'], 153, 1),
    among!(['a', 't', 's'], -1, 1),
    among!(['i', 't', 'a', 't', 's'], 156, 1),
    among!(['b', 'i', 'l', 'i', 't', 'a', 't', 's'], 157, 1),
    among!(['i', 'v', 'i', 't', 'a', 't', 's'], 157, 1),
    among!(['a', 't', 'i', 'v', 'i', 't', 'a', 't', 's'], 159, 1),
    among!(['ï', 't', 'a', 't', 's'], 156, 1),
    among!(['e', 't', 's'], -1, 1),
    among!(['a', 'n', 't', 's'], -1, 1),
    among!(['e', 'n', 't', 's'], -1, 1),
    among!(['m', 'e', 'n', 't', 's'], 164, 1),
    among!(['a', 'm', 'e', 'n', 't', 's'], 165, 1),
    among!(['o', 't', 's'], -1, 1),
    among!(['u', 't', 's'], -1, 1),
    among!(['i', 'u', 's'], -1, 1),
    among!(['t', 'r', 'i', 'u', 's'], 169, 1),
    among!(['a', 't', 'i', 'u', 's'], 169, 1),
    among!(['è', 's'], -1, 1),
    among!(['é', 's'], -1, 1),
    among!(['í', 's'], -1, 1),
    among!(['d', 'í', 's'], 174, 1),
    among!(['ó', 's'], -1, 1),
    among!(['i', 't', 'a', 't'], -1, 1),
    among!(['b', 'i', 'l', 'i', 't', 'a', 't'], 177, 1),
    among!(['i', 'v', 'i', 't', 'a', 't'], 177, 1),
    among!(['a', 't', 'i', 'v', 'i', 't', 'a', 't'], 179, 1),
    among!(['ï', 't', 'a', 't'], -1, 1),
    among!(['e', 't'], -1, 1),
    among!(['a', 'n', 't'], -1, 1),
    among!(['e', 'n', 't'], -1, 1),
    among!(['i', 'e', 'n', 't'], 184, 1),
    among!(['m', 'e', 'n', 't'], 184, 1),
    among!(['a', 'm', 'e', 'n', 't'], 186, 1),
    among!(['i', 's', 'a', 'm', 'e', 'n', 't'], 187, 1),
    among!(['o', 't'], -1, 1),
    among!(['i', 's', 's', 'e', 'u'], -1, 1),
    among!(['ì', 's', 's', 'e', 'u'], -1, 1),
    among!(['í', 's', 's', 'e', 'u'], -1, 1),
    among!(['t', 'r', 'i', 'u'], -1, 1),
    among!(['í', 's', 's', 'i', 'u'], -1, 1),
    among!(['a', 't', 'i', 'u'], -1, 1),
    among!(['ó'], -1, 1),
    among!(['i', 'ó'], 196, 1),
    among!(['c', 'i', 'ó'], 197, 1),
    among!(['a', 'c', 'i', 'ó'], 198, 1),
];

static A_3: [Among; 283] = [
    among!(['a', 'b', 'a'], -1, 1),
    among!(['e', 's', 'c', 'a'], -1, 1),
    among!(['i', 's', 'c', 'a'], -1, 1),
    among!(['ï', 's', 'c', 'a'], -1, 1),
    among!(['a', 'd', 'a'], -1, 1),
    among!(['i', 'd', 'a'], -1, 1),
    among!(['u', 'd', 'a'], -1, 1),
    among!(['ï', 'd', 'a'], -1, 1),
    among!(['i', 'a'], -1, 1),
    among!(['a', 'r', 'i', 'a'], 8, 1),
    among!(['i', 'r', 'i', 'a'], 8, 1),
    among!(['a', 'r', 'a'], -1, 1),
    among!(['i', 'e', 'r', 'a'], -1, 1),
    among!(['i', 'r', 'a'], -1, 1),
    among!(['a', 'd', 'o', 'r', 'a'], -1, 1),
    among!(['ï', 'r', 'a'], -1, 1),
    among!(['a', 'v', 'a'], -1, 1),
    among!(['i', 'x', 'a'], -1, 1),
    among!(['i', 't', 'z', 'a'], -1, 1),
    among!(['í', 'a'], -1, 1),
    among!(['a', 'r', 'í', 'a'], 19, 1),
    among!(['e', 'r', 'í', 'a'], 19, 1),
    among!(['i', 'r', 'í', 'a'], 19, 1),
    among!(['ï', 'a'], -1, 1),
    among!(['i', 's', 'c'], -1, 1),
    among!(['ï', 's', 'c'], -1, 1),
    among!(['a', 'd'], -1, 1),
    among!(['e', 'd'], -1, 1),
    among!(['i', 'd'], -1, 1),
    among!(['i', 'e'], -1, 1),
    among!(['r', 'e'], -1, 1),
    among!(['d', 'r', 'e'], 30, 1),
    among!(['a', 's', 'e'], -1, 1),
    among!(['i', 'e', 's', 'e'], -1, 1),
    among!(['a', 's', 't', 'e'], -1, 1),
    among!(['i', 's', 't', 'e'], -1, 1),
    among!(['i', 'i'], -1, 1),
    among!(['i', 'n', 'i'], -1, 1),
    among!(['e', 's', 'q', 'u', 'i'], -1, 1),
    among!(['e', 'i', 'x', 'i'], -1, 1),
    among!(['i', 't', 'z', 'i'], -1, 1),
    among!(['a', 'm'], -1, 1),
    among!(['e', 'm'], -1, 1),
    among!(['a', 'r', 'e', 'm'], 42, 1),
    among!(['i', 'r', 'e', 'm'], 42, 1),
    among!(['à', 'r', 'e', 'm'], 42, 1),
    among!(['í', 'r', 'e', 'm'], 42, 1),
    among!(['à', 's', 's', 'e', 'm'], 42, 1),
    among!(['é', 's', 's', 'e', 'm'], 42, 1),
    among!(['i', 'g', 'u', 'e', 'm'], 42, 1),
    among!(['ï', 'g', 'u', 'e', 'm'], 42, 1),
    among!(['a', 'v', 'e', 'm'], 42, 1),
    among!(['à', 'v', 'e', 'm'], 42, 1),
    among!(['á', 'v', 'e', 'm'], 42, 1),
    among!(['i', 'r', 'ì', 'e', 'm'], 42, 1),
    among!(['í', 'e', 'm'], 42, 1),
    among!(['a', 'r', 'í', 'e', 'm'], 55, 1),
    among!(['i', 'r', 'í', 'e', 'm'], 55, 1),
    among!(['a', 's', 's', 'i', 'm'], -1, 1),
    among!(['e', 's', 's', 'i', 'm'], -1, 1),
    among!(['i', 's', 's', 'i', 'm'], -1, 1),
    among!(['à', 's', 's', 'i', 'm'], -1, 1),
    among!(['è', 's', 's', 'i', 'm'], -1, 1),
    among!(['é', 's', 's', 'i', 'm'], -1, 1),
    among!(['í', 's', 's', 'i', 'm'], -1, 1),
    among!(['ï', 'm'], -1, 1),
    among!(['a', 'n'], -1, 1),
    among!(['a', 'b', 'a', 'n'], 66, 1),
    among!(['a', 'r', 'i', 'a', 'n'], 66, 1),
    among!(['a', 'r', 'a', 'n'], 66, 1),
    among!(['i', 'e', 'r', 'a', 'n'], 66, 1),
    among!(['i', 'r', 'a', 'n'], 66, 1),
    among!(['í', 'a', 'n'], 66, 1),
    among!(['a', 'r', 'í', 'a', 'n'], 72, 1),
    among!(['e', 'r', 'í', 'a', 'n'], 72, 1),
    among!(['i', 'r', 'í', 'a', 'n'], 72, 1),
    among!(['e', 'n'], -1, 1),
    among!(['i', 'e', 'n'], 76, 1),
    among!(['a', 'r', 'i', 'e', 'n'], 77, 1),
    among!(['i', 'r', 'i', 'e', 'n'], 77, 1),
    among!(['a', 'r', 'e', 'n'], 76, 1),
    among!(['e', 'r', 'e', 'n'], 76, 1),
    among!(['i', 'r', 'e', 'n'], 76, 1),
    among!(['à', 'r', 'e', 'n'], 76, 1),
    among!(['ï', 'r', 'e', 'n'], 76, 1),
    among!(['a', 's', 'e', 'n'], 76, 1),
    among!(['i', 'e', 's', 'e', 'n'], 76, 1),
    among!(['a', 's', 's', 'e', 'n'], 76, 1),
    among!(['e', 's', 's', 'e', 'n'], 76, 1),
    among!(['i', 's', 's', 'e', 'n'], 76, 1),
    among!(['é', 's', 's', 'e', 'n'], 76, 1),
    among!(['ï', 's', 's', 'e', 'n'], 76, 1),
    among!(['e', 's', 'q', 'u', 'e', 'n'], 76, 1),
    among!(['i', 's', 'q', 'u', 'e', 'n'], 76, 1),
    among!(['ï', 's', 'q', 'u', 'e', 'n'], 76, 1),
    among!(['a', 'v', 'e', 'n'], 76, 1),
    among!(['i', 'x', 'e', 'n'], 76, 1),
    among!(['e', 'i', 'x', 'e', 'n'], 96, 1),
    among!(['ï', 'x', 'e', 'n'], 76, 1),
    among!(['ï', 'e', 'n'], 76, 1),
    among!(['i', 'n'], -1, 1),
    among!(['i', 'n', 'i', 'n'], 100, 1),
    among!(['s', 'i', 'n'], 100, 1),
    among!(['i', 's', 'i', 'n'], 102, 1),
    among!(['a', 's', 's', 'i', 'n'], 102, 1),
    among!(['e', 's', 's', 'i', 'n'], 102, 1),
    among!(['i', 's', 's', 'i', 'n'], 102, 1),
    among!(['ï', 's', 's', 'i', 'n'], 102, 1),
    among!(['e', 's', 'q', 'u', 'i', 'n'], 100, 1),
    among!(['e', 'i', 'x', 'i', 'n'], 100, 1),
    among!(['a', 'r', 'o', 'n'], -1, 1),
    among!(['i', 'e', 'r', 'o', 'n'], -1, 1),
    among!(['a', 'r', 'á', 'n'], -1, 1),
    among!(['e', 'r', 'á', 'n'], -1, 1),
    among!(['i', 'r', 'á', 'n'], -1, 1),
    among!(['i', 'ï', 'n'], -1, 1),
    among!(['a', 'd', 'o'], -1, 1),
    among!(['i', 'd', 'o'], -1, 1),
    among!(['a', 'n', 'd', 'o'], -1, 2),
    among!(['i', 'e', 'n', 'd', 'o'], -1, 1),
    among!(['i', 'o'], -1, 1),
    among!(['i', 'x', 'o'], -1, 1),
    among!(['e', 'i', 'x', 'o'], 121, 1),
    among!(['ï', 'x', 'o'], -1, 1),
    among!(['i', 't', 'z', 'o'], -1, 1),
    among!(['a', 'r'], -1, 1),
    among!(['t', 'z', 'a', 'r'], 125, 1),
    among!(['e', 'r'], -1, 1),
    among!(['e', 'i', 'x', 'e', 'r'], 127, 1),
    among!(['i', 'r'], -1, 1),
    among!(['a', 'd', 'o', 'r'], -1, 1),
    among!(['a', 's'], -1, 1),
    among!(['a', 'b', 'a', 's'], 131, 1),
    among!(['a', 'd', 'a', 's'], 131, 1),
    among!(['i', 'd', 'a', 's'], 131, 1),
    among!(['a', 'r', 'a', 's'], 131, 1),
    among!(['i', 'e', 'r', 'a', 's'], 131, 1),
    among!(['í', 'a', 's'], 131, 1),
    among!(['a', 'r', 'í', 'a', 's'], 137, 1),
    among!(['e', 'r', 'í', 'a', 's'], 137, 1),
    among!(['i', 'r', 'í', 'a', 's'], 137, 1),
    among!(['i', 'd', 's'], -1, 1),
    among!(['e', 's'], -1, 1),
    among!(['a', 'd', 'e', 's'], 142, 1),
    among!(['i', 'd', 'e', 's'], 142, 1),
    among!(['u', 'd', 'e', 's'], 142, 1),
    among!(['ï', 'd', 'e', 's'], 142, 1),
    among!(['a', 't', 'g', 'e', 's'], 142, 1),
    among!(['i', 'e', 's'], 142, 1),
    among!(['a', 'r', 'i', 'e', 's'], 148, 1),
    among!(['i', 'r', 'i', 'e', 's'], 148, 1),
    among!(['a', 'r', 'e', 's'], 142, 1),
    among!(['i', 'r', 'e', 's'], 142, 1),
    among!(['a', 'd', 'o', 'r', 'e', 's'], 142, 1),
    among!(['ï', 'r', 'e', 's'], 142, 1),
    among!(['a', 's', 'e', 's'], 142, 1),
    among!(['i', 'e', 's', 'e', 's'], 142, 1),
    among!(['a', 's', 's', 'e', 's'], 142, 1),
    among!(['e', 's', 's', 'e', 's'], 142, 1),
    among!(['i', 's', 's', 'e', 's'], 142, 1),
    among!(['ï', 's', 's', 'e', 's'], 142, 1),
    among!(['q', 'u', 'e', 's'], 142, 1),
    among!(['e', 's', 'q', 'u', 'e', 's'], 161, 1),
    among!(['ï', 's', 'q', 'u', 'e', 's'], 161, 1),
    among!(['a', 'v', 'e', 's'], 142, 1),
    among!(['i', 'x', 'e', 's'], 142, 1),
    among!(['e', 'i', 'x', 'e', 's'], 165, 1),
    among!(['ï', 'x', 'e', 's'], 142, 1),
    among!(['ï', 'e', 's'], 142, 1),
    among!(['a', 'b', 'a', 'i', 's'], -1, 1),
    among!(['a', 'r', 'a', 'i', 's'], -1, 1),
    among!(['i', 'e', 'r', 'a', 'i', 's'], -1, 1),
    among!(['í', 'a', 'i', 's'], -1, 1),
    among!(['a', 'r', 'í', 'a', 'i', 's'], 172, 1),
    among!(['e', 'r', 'í', 'a', 'i', 's'], 172, 1),
    among!(['i', 'r', 'í', 'a', 'i', 's'], 172, 1),
    among!(['a', 's', 'e', 'i', 's'], -1, 1),
    among!(['i', 'e', 's', 'e', 'i', 's'], -1, 1),
    among!(['a', 's', 't', 'e', 'i', 's'], -1, 1),
    among!(['i', 's', 't', 'e', 'i', 's'], -1, 1),
    among!(['i', 'n', 'i', 's'], -1, 1),
    among!(['s', 'i', 's'], -1, 1),
    among!(['i', 's', 'i', 's'], 181, 1),
    among!(['a', 's', 's', 'i', 's'], 181, 1),
    among!(['e', 's', 's', 'i', 's'], 181, 1),
    among!(['i', 's', 's', 'i', 's'], 181, 1),
    among!(['ï', 's', 's', 'i', 's'], 181, 1),
    among!(['e', 's', 'q', 'u', 'i', 's'], -1, 1),
    among!(['e', 'i', 'x', 'i', 's'], -1, 1),
    among!(['i', 't', 'z', 'i', 's'], -1, 1),
    among!(['á', 'i', 's'], -1, 1),
    among!(['a', 'r', 'é', 'i', 's'], -1, 1),
    among!(['e', 'r', 'é', 'i', 's'], -1, 1),
    among!(['i', 'r', 'é', 'i', 's'], -1, 1),
    among!(['a', 'm', 's'], -1, 1),
    among!(['a', 'd', 'o', 's'], -1, 1),
    among!(['i', 'd', 'o', 's'], -1, 1),
    among!(['a', 'm', 'o', 's'], -1, 1),
    among!(['á', 'b', 'a', 'm', 'o', 's'], 197, 1),
    among!(['á', 'r', 'a', 'm', 'o', 's'], 197, 1),
    among!(['i', 'é', 'r', 'a', 'm', 'o', 's'], 197, 1),
    among!(['í', 'a', 'm', 'o', 's'], 197, 1),
    among!(['a', 'r', 'í', 'a', 'm', 'o', 's'], 201, 1),
    among!(['e', 'r', 'í', 'a', 'm', 'o', 's'], 201, 1),
    among!(['i', 'r', 'í', 'a', 'm', 'o', 's'], 201, 1),
    among!(['a', 'r', 'e', 'm', 'o', 's'], -1, 1),
    among!(['e', 'r', 'e', 'm', 'o', 's'], -1, 1),
    among!(['i', 'r', 'e', 'm', 'o', 's'], -1, 1),
    among!(['á', 's', 'e', 'm', 'o', 's'], -1, 1),
    among!(['i', 'é', 's', 'e', 'm', 'o', 's'], -1, 1),
    among!(['i', 'm', 'o', 's'], -1, 1),
    among!(['a', 'd', 'o', 'r', 's'], -1, 1),
    among!(['a', 's', 's'], -1, 1),
    among!(['e', 'r', 'a', 's', 's'], 212, 1),
    among!(['e', 's', 's'], -1, 1),
    among!(['a', 't', 's'], -1, 1),
    among!(['i', 't', 's'], -1, 1),
    among!(['e', 'n', 't', 's'], -1, 1),
    among!(['à', 's'], -1, 1),
    among!(['a', 'r', 'à', 's'], 218, 1),
    among!(['i', 'r', 'à', 's'], 218, 1),
    among!(['a', 'r', 'á', 's'], -1, 1),
    among!(['e', 'r', 'á', 's'], -1, 1),
    among!(['i', 'r', 'á', 's'], -1, 1),
    among!(['é', 's'], -1, 1),
    among!(['a', 'r', 'é', 's'], 224, 1),
    among!(['í', 's'], -1, 1),
    among!(['i', 'ï', 's'], -1, 1),
    among!(['a', 't'], -1, 1),
    among!(['i', 't'], -1, 1),
    among!(['a', 'n', 't'], -1, 1),
    among!(['e', 'n', 't'], -1, 1),
    among!(['i', 'n', 't'], -1, 1),
    among!(['u', 't'], -1, 1),
    among!(['ï', 't'], -1, 1),
    among!(['a', 'u'], -1, 1),
    among!(['e', 'r', 'a', 'u'], 235, 1),
    among!(['i', 'e', 'u'], -1, 1),
    among!(['i', 'n', 'e', 'u'], -1, 1),
    among!(['a', 'r', 'e', 'u'], -1, 1),
    among!(['i', 'r', 'e', 'u'], -1, 1),
    among!(['à', 'r', 'e', 'u'], -1, 1),
    among!(['í', 'r', 'e', 'u'], -1, 1),
    among!(['a', 's', 's', 'e', 'u'], -1, 1),
    among!(['e', 's', 's', 'e', 'u'], -1, 1),
    among!(['e', 'r', 'e', 's', 's', 'e', 'u'], 244, 1),
    among!(['à', 's', 's', 'e', 'u'], -1, 1),
    among!(['é', 's', 's', 'e', 'u'], -1, 1),
    among!(['i', 'g', 'u', 'e', 'u'], -1, 1),
    among!(['ï', 'g', 'u', 'e', 'u'], -1, 1),
    among!(['à', 'v', 'e', 'u'], -1, 1),
    among!(['á', 'v', 'e', 'u'], -1, 1),
    among!(['i', 't', 'z', 'e', 'u'], -1, 1),
    among!(['ì', 'e', 'u'], -1, 1),
    among!(['i', 'r', 'ì', 'e', 'u'], 253, 1),
    among!(['í', 'e', 'u'], -1, 1),
    among!(['a', 'r', 'í', 'e', 'u'], 255, 1),
    among!(['i', 'r', 'í', 'e', 'u'], 255, 1),
    among!(['a', 's', 's', 'i', 'u'], -1, 1),
    among!(['i', 's', 's', 'i', 'u'], -1, 1),
    among!(['à', 's', 's', 'i', 'u'], -1, 1),
    among!(['è', 's', 's', 'i', 'u'], -1, 1),
    among!(['é', 's', 's', 'i', 'u'], -1, 1),
    among!(['í', 's', 's', 'i', 'u'], -1, 1),
    among!(['ï', 'u'], -1, 1),
    among!(['i', 'x'], -1, 1),
    among!(['e', 'i', 'x'], 265, 1),
    among!(['ï', 'x'], -1, 1),
    among!(['i', 't', 'z'], -1, 1),
    among!(['i', 'à'], -1, 1),
    among!(['a', 'r', 'à'], -1, 1),
    among!(['i', 'r', 'à'], -1, 1),
    among!(['i', 't', 'z', 'à'], -1, 1),
    among!(['a', 'r', 'á'], -1, 1),
    among!(['e', 'r', 'á'], -1, 1),
    among!(['i', 'r', 'á'], -1, 1),
    among!(['i', 'r', 'è'], -1, 1),
    among!(['a', 'r', 'é'], -1, 1),
    among!(['e', 'r', 'é'], -1, 1),
    among!(['i', 'r', 'é'], -1, 1),
    among!(['í'], -1, 1),
    among!(['i', 'ï'], -1, 1),
    among!(['i', 'ó'], -1, 1),
];

static A_4: [Among; 22] = [
    among!(['a'], -1, 1),
    among!(['e'], -1, 1),
    among!(['i'], -1, 1),
    among!(['ï', 'n'], -1, 1),
    among!(['o'], -1, 1),
    among!(['i', 'r'], -1, 1),
    among!(['s'], -1, 1),
    among!(['i', 's'], 6, 1),
    among!(['o', 's'], 6, 1),
    among!(['ï', 's'], 6, 1),
    among!(['i', 't'], -1, 1),
    among!(['e', 'u'], -1, 1),
    among!(['i', 'u'], -1, 1),
    among!(['i', 'q', 'u'], -1, 2),
    among!(['i', 't', 'z'], -1, 1),
    among!(['à'], -1, 1),
    among!(['á'], -1, 1),
    among!(['é'], -1, 1),
    among!(['ì'], -1, 1),
    among!(['í'], -1, 1),
    among!(['ï'], -1, 1),
    among!(['ó'], -1, 1),
];

/// The stemmer's state: the buffer and the program's own variables.
pub(super) struct CatalanStemmer {
    env: Env,
    i_p2: i32,
    i_p1: i32,
}

impl std::ops::Deref for CatalanStemmer {
    type Target = Env;
    fn deref(&self) -> &Env {
        &self.env
    }
}

impl std::ops::DerefMut for CatalanStemmer {
    fn deref_mut(&mut self) -> &mut Env {
        &mut self.env
    }
}

/// The Catalan stem of `word`.
pub fn stem(word: &str) -> String {
    let mut program = CatalanStemmer { env: Env::new(word), i_p2: 0, i_p1: 0 };
    program.stem_program();
    program.env.into_string()
}

impl CatalanStemmer {
    fn r_mark_regions(&mut self) -> bool {
        self.i_p1 = self.limit;
        self.i_p2 = self.limit;
        let v_1 = self.cursor;
        'lab0: {
            if !self.go_out_grouping(G_V) {
                break 'lab0;
            }
            self.cursor += 1;
            if !self.go_in_grouping(G_V) {
                break 'lab0;
            }
            self.cursor += 1;
            self.i_p1 = self.cursor;
            if !self.go_out_grouping(G_V) {
                break 'lab0;
            }
            self.cursor += 1;
            if !self.go_in_grouping(G_V) {
                break 'lab0;
            }
            self.cursor += 1;
            self.i_p2 = self.cursor;
        }
        self.cursor = v_1;
        return true;
    }

    fn r_cleaning(&mut self) -> bool {
        'loop1: loop {
            if self.out_of_fuel() {
                return false;
            }
            let v_1 = self.cursor;
            'lab0: {
                self.bra = self.cursor;
                let among_var = self.find_among(&A_0);
                self.ket = self.cursor;
                if among_var == 1 {
                    if !self.slice_from("a") {
                        return false;
                    }
                } else if among_var == 2 {
                    if !self.slice_from("e") {
                        return false;
                    }
                } else if among_var == 3 {
                    if !self.slice_from("i") {
                        return false;
                    }
                } else if among_var == 4 {
                    if !self.slice_from("o") {
                        return false;
                    }
                } else if among_var == 5 {
                    if !self.slice_from("u") {
                        return false;
                    }
                } else if among_var == 6 {
                    if !self.slice_from(".") {
                        return false;
                    }
                } else {
                    if self.cursor >= self.limit {
                        break 'lab0;
                    }
                    self.cursor += 1;
                }
                continue 'loop1;
            }
            self.cursor = v_1;
            break 'loop1;
        }
        return true;
    }

    fn r_r1(&mut self) -> bool {
        return self.i_p1 <= self.cursor;
    }

    fn r_r2(&mut self) -> bool {
        return self.i_p2 <= self.cursor;
    }

    fn r_attached_pronoun(&mut self) -> bool {
        self.ket = self.cursor;
        if self.find_among_b(&A_1) == 0 {
            return false;
        }
        self.bra = self.cursor;
        if !self.r_r1() {
            return false;
        }
        if !self.slice_del() {
            return false;
        }
        return true;
    }

    fn r_standard_suffix(&mut self) -> bool {
        self.ket = self.cursor;
        let among_var = self.find_among_b(&A_2);
        if among_var == 0 {
            return false;
        }
        self.bra = self.cursor;
        if among_var == 1 {
            if !self.r_r1() {
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
            if !self.r_r2() {
                return false;
            }
            if !self.slice_from("log") {
                return false;
            }
        } else if among_var == 4 {
            if !self.r_r2() {
                return false;
            }
            if !self.slice_from("ic") {
                return false;
            }
        } else {
            if !self.r_r1() {
                return false;
            }
            if !self.slice_from("c") {
                return false;
            }
        }
        return true;
    }

    fn r_verb_suffix(&mut self) -> bool {
        self.ket = self.cursor;
        let among_var = self.find_among_b(&A_3);
        if among_var == 0 {
            return false;
        }
        self.bra = self.cursor;
        if among_var == 1 {
            if !self.r_r1() {
                return false;
            }
            if !self.slice_del() {
                return false;
            }
        } else {
            if !self.r_r2() {
                return false;
            }
            if !self.slice_del() {
                return false;
            }
        }
        return true;
    }

    fn r_residual_suffix(&mut self) -> bool {
        self.ket = self.cursor;
        let among_var = self.find_among_b(&A_4);
        if among_var == 0 {
            return false;
        }
        self.bra = self.cursor;
        if among_var == 1 {
            if !self.r_r1() {
                return false;
            }
            if !self.slice_del() {
                return false;
            }
        } else {
            if !self.r_r1() {
                return false;
            }
            if !self.slice_from("ic") {
                return false;
            }
        }
        return true;
    }

    fn stem_program(&mut self) -> bool {
        self.r_mark_regions();
        self.limit_backward = self.cursor;
        self.cursor = self.limit;
        let v_2 = self.limit - self.cursor;
        self.r_attached_pronoun();
        self.cursor = self.limit - v_2;
        let v_3 = self.limit - self.cursor;
        'lab0: {
            'lab1: {
                let v_4 = self.limit - self.cursor;
                'lab2: {
                    if !self.r_standard_suffix() {
                        break 'lab2;
                    }
                    break 'lab1;
                }
                self.cursor = self.limit - v_4;
                if !self.r_verb_suffix() {
                    break 'lab0;
                }
            }
        }
        self.cursor = self.limit - v_3;
        let v_5 = self.limit - self.cursor;
        self.r_residual_suffix();
        self.cursor = self.limit - v_5;
        self.cursor = self.limit_backward;
        let v_6 = self.cursor;
        self.r_cleaning();
        self.cursor = v_6;
        return true;
    }
}
