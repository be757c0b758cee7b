//! Snowball's Armenian stemmer, transcribed from the code the Snowball compiler generates for
//! `armenian.sbl` (as Lucene's `org.tartarus.snowball.ext.ArmenianStemmer`) by
//! `tests/golden/analysis/snowball/py2rust.py`; runs on [`super::env::Env`].

#![allow(clippy::all, unused_parens, unused_variables, unused_labels)]

use super::among;
use super::env::{Among, Env};

const G_V: &[u16] = &['ա' as u16, 'ե' as u16, 'է' as u16, 'ը' as u16, 'ի' as u16, 'ո' as u16, 'ւ' as u16, 'օ' as u16];

static A_0: [Among; 23] = [
    among!(['ր', 'ո', 'ր', 'դ'], -1, 1),
    among!(['ե', 'ր', 'ո', 'ր', 'դ'], 0, 1),
    among!(['ա', 'լ', 'ի'], -1, 1),
    among!(['ա', 'կ', 'ի'], -1, 1),
    among!(['ո', 'ր', 'ա', 'կ'], -1, 1),
    among!(['ե', 'ղ'], -1, 1),
    among!(['ա', 'կ', 'ա', 'ն'], -1, 1),
    among!(['ա', 'ր', 'ա', 'ն'], -1, 1),
    among!(['ե', 'ն'], -1, 1),
    among!(['ե', 'կ', 'ե', 'ն'], 8, 1),
    among!(['ե', 'ր', 'ե', 'ն'], 8, 1),
    among!(['ո', 'ր', 'է', 'ն'], -1, 1),
    among!(['ի', 'ն'], -1, 1),
    among!(['գ', 'ի', 'ն'], 12, 1),
    among!(['ո', 'վ', 'ի', 'ն'], 12, 1),
    among!(['լ', 'ա', 'յ', 'ն'], -1, 1),
    among!(['վ', 'ո', 'ւ', 'ն'], -1, 1),
    among!(['պ', 'ե', 'ս'], -1, 1),
    among!(['ի', 'վ'], -1, 1),
    among!(['ա', 'տ'], -1, 1),
    among!(['ա', 'վ', 'ե', 'տ'], -1, 1),
    among!(['կ', 'ո', 'տ'], -1, 1),
    among!(['բ', 'ա', 'ր'], -1, 1),
];

static A_1: [Among; 71] = [
    among!(['ա'], -1, 1),
    among!(['ա', 'ց', 'ա'], 0, 1),
    among!(['ե', 'ց', 'ա'], 0, 1),
    among!(['վ', 'ե'], -1, 1),
    among!(['ա', 'ց', 'ր', 'ի'], -1, 1),
    among!(['ա', 'ց', 'ի'], -1, 1),
    among!(['ե', 'ց', 'ի'], -1, 1),
    among!(['վ', 'ե', 'ց', 'ի'], 6, 1),
    among!(['ա', 'լ'], -1, 1),
    among!(['ը', 'ա', 'լ'], 8, 1),
    among!(['ա', 'ն', 'ա', 'լ'], 8, 1),
    among!(['ե', 'ն', 'ա', 'լ'], 8, 1),
    among!(['ա', 'ց', 'ն', 'ա', 'լ'], 8, 1),
    among!(['ե', 'լ'], -1, 1),
    among!(['ը', 'ե', 'լ'], 13, 1),
    among!(['ն', 'ե', 'լ'], 13, 1),
    among!(['ց', 'ն', 'ե', 'լ'], 15, 1),
    among!(['ե', 'ց', 'ն', 'ե', 'լ'], 16, 1),
    among!(['չ', 'ե', 'լ'], 13, 1),
    among!(['վ', 'ե', 'լ'], 13, 1),
    among!(['ա', 'ց', 'վ', 'ե', 'լ'], 19, 1),
    among!(['ե', 'ց', 'վ', 'ե', 'լ'], 19, 1),
    among!(['տ', 'ե', 'լ'], 13, 1),
    among!(['ա', 'տ', 'ե', 'լ'], 22, 1),
    among!(['ո', 'տ', 'ե', 'լ'], 22, 1),
    among!(['կ', 'ո', 'տ', 'ե', 'լ'], 24, 1),
    among!(['վ', 'ա', 'ծ'], -1, 1),
    among!(['ո', 'ւ', 'մ'], -1, 1),
    among!(['վ', 'ո', 'ւ', 'մ'], 27, 1),
    among!(['ա', 'ն'], -1, 1),
    among!(['ց', 'ա', 'ն'], 29, 1),
    among!(['ա', 'ց', 'ա', 'ն'], 30, 1),
    among!(['ա', 'ց', 'ր', 'ի', 'ն'], -1, 1),
    among!(['ա', 'ց', 'ի', 'ն'], -1, 1),
    among!(['ե', 'ց', 'ի', 'ն'], -1, 1),
    among!(['վ', 'ե', 'ց', 'ի', 'ն'], 34, 1),
    among!(['ա', 'լ', 'ի', 'ս'], -1, 1),
    among!(['ե', 'լ', 'ի', 'ս'], -1, 1),
    among!(['ա', 'վ'], -1, 1),
    among!(['ա', 'ց', 'ա', 'վ'], 38, 1),
    among!(['ե', 'ց', 'ա', 'վ'], 38, 1),
    among!(['ա', 'լ', 'ո', 'վ'], -1, 1),
    among!(['ե', 'լ', 'ո', 'վ'], -1, 1),
    among!(['ա', 'ր'], -1, 1),
    among!(['ա', 'ց', 'ա', 'ր'], 43, 1),
    among!(['ե', 'ց', 'ա', 'ր'], 43, 1),
    among!(['ա', 'ց', 'ր', 'ի', 'ր'], -1, 1),
    among!(['ա', 'ց', 'ի', 'ր'], -1, 1),
    among!(['ե', 'ց', 'ի', 'ր'], -1, 1),
    among!(['վ', 'ե', 'ց', 'ի', 'ր'], 48, 1),
    among!(['ա', 'ց'], -1, 1),
    among!(['ե', 'ց'], -1, 1),
    among!(['ա', 'ց', 'ր', 'ե', 'ց'], 51, 1),
    among!(['ա', 'լ', 'ո', 'ւ', 'ց'], -1, 1),
    among!(['ե', 'լ', 'ո', 'ւ', 'ց'], -1, 1),
    among!(['ա', 'լ', 'ո', 'ւ'], -1, 1),
    among!(['ե', 'լ', 'ո', 'ւ'], -1, 1),
    among!(['ա', 'ք'], -1, 1),
    among!(['ց', 'ա', 'ք'], 57, 1),
    among!(['ա', 'ց', 'ա', 'ք'], 58, 1),
    among!(['ա', 'ց', 'ր', 'ի', 'ք'], -1, 1),
    among!(['ա', 'ց', 'ի', 'ք'], -1, 1),
    among!(['ե', 'ց', 'ի', 'ք'], -1, 1),
    among!(['վ', 'ե', 'ց', 'ի', 'ք'], 62, 1),
    among!(['ա', 'ն', 'ք'], -1, 1),
    among!(['ց', 'ա', 'ն', 'ք'], 64, 1),
    among!(['ա', 'ց', 'ա', 'ն', 'ք'], 65, 1),
    among!(['ա', 'ց', 'ր', 'ի', 'ն', 'ք'], -1, 1),
    among!(['ա', 'ց', 'ի', 'ն', 'ք'], -1, 1),
    among!(['ե', 'ց', 'ի', 'ն', 'ք'], -1, 1),
    among!(['վ', 'ե', 'ց', 'ի', 'ն', 'ք'], 69, 1),
];

static A_2: [Among; 40] = [
    among!(['ո', 'ր', 'դ'], -1, 1),
    among!(['ո', 'ւ', 'յ', 'թ'], -1, 1),
    among!(['ո', 'ւ', 'հ', 'ի'], -1, 1),
    among!(['ց', 'ի'], -1, 1),
    among!(['ի', 'լ'], -1, 1),
    among!(['ա', 'կ'], -1, 1),
    among!(['յ', 'ա', 'կ'], 5, 1),
    among!(['ա', 'ն', 'ա', 'կ'], 5, 1),
    among!(['ի', 'կ'], -1, 1),
    among!(['ո', 'ւ', 'կ'], -1, 1),
    among!(['ա', 'ն'], -1, 1),
    among!(['պ', 'ա', 'ն'], 10, 1),
    among!(['ս', 'տ', 'ա', 'ն'], 10, 1),
    among!(['ա', 'ր', 'ա', 'ն'], 10, 1),
    among!(['ե', 'ղ', 'է', 'ն'], -1, 1),
    among!(['յ', 'ո', 'ւ', 'ն'], -1, 1),
    among!(['ո', 'ւ', 'թ', 'յ', 'ո', 'ւ', 'ն'], 15, 1),
    among!(['ա', 'ծ', 'ո'], -1, 1),
    among!(['ի', 'չ'], -1, 1),
    among!(['ո', 'ւ', 'ս'], -1, 1),
    among!(['ո', 'ւ', 'ս', 'տ'], -1, 1),
    among!(['գ', 'ա', 'ր'], -1, 1),
    among!(['վ', 'ո', 'ր'], -1, 1),
    among!(['ա', 'վ', 'ո', 'ր'], 22, 1),
    among!(['ո', 'ց'], -1, 1),
    among!(['ա', 'ն', 'օ', 'ց'], -1, 1),
    among!(['ո', 'ւ'], -1, 1),
    among!(['ք'], -1, 1),
    among!(['չ', 'ե', 'ք'], 27, 1),
    among!(['ի', 'ք'], 27, 1),
    among!(['ա', 'լ', 'ի', 'ք'], 29, 1),
    among!(['ա', 'ն', 'ի', 'ք'], 29, 1),
    among!(['վ', 'ա', 'ծ', 'ք'], 27, 1),
    among!(['ո', 'ւ', 'յ', 'ք'], 27, 1),
    among!(['ե', 'ն', 'ք'], 27, 1),
    among!(['ո', 'ն', 'ք'], 27, 1),
    among!(['ո', 'ւ', 'ն', 'ք'], 27, 1),
    among!(['մ', 'ո', 'ւ', 'ն', 'ք'], 36, 1),
    among!(['ի', 'չ', 'ք'], 27, 1),
    among!(['ա', 'ր', 'ք'], 27, 1),
];

static A_3: [Among; 57] = [
    among!(['ս', 'ա'], -1, 1),
    among!(['վ', 'ա'], -1, 1),
    among!(['ա', 'մ', 'բ'], -1, 1),
    among!(['դ'], -1, 1),
    among!(['ա', 'ն', 'դ'], 3, 1),
    among!(['ո', 'ւ', 'թ', 'յ', 'ա', 'ն', 'դ'], 4, 1),
    among!(['վ', 'ա', 'ն', 'դ'], 4, 1),
    among!(['ո', 'ջ', 'դ'], 3, 1),
    among!(['ե', 'ր', 'դ'], 3, 1),
    among!(['ն', 'ե', 'ր', 'դ'], 8, 1),
    among!(['ո', 'ւ', 'դ'], 3, 1),
    among!(['ը'], -1, 1),
    among!(['ա', 'ն', 'ը'], 11, 1),
    among!(['ո', 'ւ', 'թ', 'յ', 'ա', 'ն', 'ը'], 12, 1),
    among!(['վ', 'ա', 'ն', 'ը'], 12, 1),
    among!(['ո', 'ջ', 'ը'], 11, 1),
    among!(['ե', 'ր', 'ը'], 11, 1),
    among!(['ն', 'ե', 'ր', 'ը'], 16, 1),
    among!(['ի'], -1, 1),
    among!(['վ', 'ի'], 18, 1),
    among!(['ե', 'ր', 'ի'], 18, 1),
    among!(['ն', 'ե', 'ր', 'ի'], 20, 1),
    among!(['ա', 'ն', 'ո', 'ւ', 'մ'], -1, 1),
    among!(['ե', 'ր', 'ո', 'ւ', 'մ'], -1, 1),
    among!(['ն', 'ե', 'ր', 'ո', 'ւ', 'մ'], 23, 1),
    among!(['ն'], -1, 1),
    among!(['ա', 'ն'], 25, 1),
    among!(['ո', 'ւ', 'թ', 'յ', 'ա', 'ն'], 26, 1),
    among!(['վ', 'ա', 'ն'], 26, 1),
    among!(['ի', 'ն'], 25, 1),
    among!(['ե', 'ր', 'ի', 'ն'], 29, 1),
    among!(['ն', 'ե', 'ր', 'ի', 'ն'], 30, 1),
    among!(['ո', 'ւ', 'թ', 'յ', 'ա', 'ն', 'ն'], 25, 1),
    among!(['ե', 'ր', 'ն'], 25, 1),
    among!(['ն', 'ե', 'ր', 'ն'], 33, 1),
    among!(['ո', 'ւ', 'ն'], 25, 1),
    among!(['ո', 'ջ'], -1, 1),
    among!(['ո', 'ւ', 'թ', 'յ', 'ա', 'ն', 'ս'], -1, 1),
    among!(['վ', 'ա', 'ն', 'ս'], -1, 1),
    among!(['ո', 'ջ', 'ս'], -1, 1),
    among!(['ո', 'վ'], -1, 1),
    among!(['ա', 'ն', 'ո', 'վ'], 40, 1),
    among!(['վ', 'ո', 'վ'], 40, 1),
    among!(['ե', 'ր', 'ո', 'վ'], 40, 1),
    among!(['ն', 'ե', 'ր', 'ո', 'վ'], 43, 1),
    among!(['ե', 'ր'], -1, 1),
    among!(['ն', 'ե', 'ր'], 45, 1),
    among!(['ց'], -1, 1),
    among!(['ի', 'ց'], 47, 1),
    among!(['վ', 'ա', 'ն', 'ի', 'ց'], 48, 1),
    among!(['ո', 'ջ', 'ի', 'ց'], 48, 1),
    among!(['վ', 'ի', 'ց'], 48, 1),
    among!(['ե', 'ր', 'ի', 'ց'], 48, 1),
    among!(['ն', 'ե', 'ր', 'ի', 'ց'], 52, 1),
    among!(['ց', 'ի', 'ց'], 48, 1),
    among!(['ո', 'ց'], 47, 1),
    among!(['ո', 'ւ', 'ց'], 47, 1),
];

/// The stemmer's state: the buffer and the program's own variables.
pub(super) struct ArmenianStemmer {
    env: Env,
    i_p2: i32,
    i_pv: i32,
}

impl std::ops::Deref for ArmenianStemmer {
    type Target = Env;
    fn deref(&self) -> &Env {
        &self.env
    }
}

impl std::ops::DerefMut for ArmenianStemmer {
    fn deref_mut(&mut self) -> &mut Env {
        &mut self.env
    }
}

/// The Armenian stem of `word`.
pub fn stem(word: &str) -> String {
    let mut program = ArmenianStemmer { env: Env::new(word), i_p2: 0, i_pv: 0 };
    program.stem_program();
    program.env.into_string()
}

impl ArmenianStemmer {
    fn r_mark_regions(&mut self) -> bool {
        self.i_pv = self.limit;
        self.i_p2 = self.limit;
        let v_1 = self.cursor;
        'lab0: {
            if !self.go_out_grouping(G_V) {
                break 'lab0;
            }
            self.cursor += 1;
            self.i_pv = self.cursor;
            if !self.go_in_grouping(G_V) {
                break 'lab0;
            }
            self.cursor += 1;
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

    fn r_r2(&mut self) -> bool {
        return self.i_p2 <= self.cursor;
    }

    fn r_adjective(&mut self) -> bool {
        self.ket = self.cursor;
        if self.find_among_b(&A_0) == 0 {
            return false;
        }
        self.bra = self.cursor;
        if !self.slice_del() {
            return false;
        }
        return true;
    }

    fn r_verb(&mut self) -> bool {
        self.ket = self.cursor;
        if self.find_among_b(&A_1) == 0 {
            return false;
        }
        self.bra = self.cursor;
        if !self.slice_del() {
            return false;
        }
        return true;
    }

    fn r_noun(&mut self) -> bool {
        self.ket = self.cursor;
        if self.find_among_b(&A_2) == 0 {
            return false;
        }
        self.bra = self.cursor;
        if !self.slice_del() {
            return false;
        }
        return true;
    }

    fn r_ending(&mut self) -> bool {
        self.ket = self.cursor;
        if self.find_among_b(&A_3) == 0 {
            return false;
        }
        self.bra = self.cursor;
        if !self.r_r2() {
            return false;
        }
        if !self.slice_del() {
            return false;
        }
        return true;
    }

    fn stem_program(&mut self) -> bool {
        self.r_mark_regions();
        self.limit_backward = self.cursor;
        self.cursor = self.limit;
        if self.cursor < self.i_pv {
            return false;
        }
        let v_3 = self.limit_backward;
        self.limit_backward = self.i_pv;
        let v_4 = self.limit - self.cursor;
        self.r_ending();
        self.cursor = self.limit - v_4;
        let v_5 = self.limit - self.cursor;
        self.r_verb();
        self.cursor = self.limit - v_5;
        let v_6 = self.limit - self.cursor;
        self.r_adjective();
        self.cursor = self.limit - v_6;
        let v_7 = self.limit - self.cursor;
        self.r_noun();
        self.cursor = self.limit - v_7;
        self.limit_backward = v_3;
        self.cursor = self.limit_backward;
        return true;
    }
}
