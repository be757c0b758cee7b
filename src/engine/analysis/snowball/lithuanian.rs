//! Snowball's Lithuanian stemmer, transcribed from the code the Snowball compiler generates for
//! `lithuanian.sbl` (as Lucene's `org.tartarus.snowball.ext.LithuanianStemmer`) by
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
    'y' as u16,
    'ą' as u16,
    'ė' as u16,
    'ę' as u16,
    'į' as u16,
    'ū' as u16,
    'ų' as u16,
];

static A_0: [Among; 204] = [
    among!(['a'], -1, -1),
    among!(['i', 'a'], 0, -1),
    among!(['e', 'r', 'i', 'a'], 1, -1),
    among!(['o', 's', 'n', 'a'], 0, -1),
    among!(['i', 'o', 's', 'n', 'a'], 3, -1),
    among!(['u', 'o', 's', 'n', 'a'], 3, -1),
    among!(['i', 'u', 'o', 's', 'n', 'a'], 5, -1),
    among!(['y', 's', 'n', 'a'], 0, -1),
    among!(['ė', 's', 'n', 'a'], 0, -1),
    among!(['e'], -1, -1),
    among!(['i', 'e'], 9, -1),
    among!(['e', 'n', 'i', 'e'], 10, -1),
    among!(['e', 'r', 'i', 'e'], 10, -1),
    among!(['o', 'j', 'e'], 9, -1),
    among!(['i', 'o', 'j', 'e'], 13, -1),
    among!(['u', 'j', 'e'], 9, -1),
    among!(['i', 'u', 'j', 'e'], 15, -1),
    among!(['y', 'j', 'e'], 9, -1),
    among!(['e', 'n', 'y', 'j', 'e'], 17, -1),
    among!(['e', 'r', 'y', 'j', 'e'], 17, -1),
    among!(['ė', 'j', 'e'], 9, -1),
    among!(['a', 'm', 'e'], 9, -1),
    among!(['i', 'a', 'm', 'e'], 21, -1),
    among!(['s', 'i', 'm', 'e'], 9, -1),
    among!(['o', 'm', 'e'], 9, -1),
    among!(['ė', 'm', 'e'], 9, -1),
    among!(['t', 'u', 'm', 'ė', 'm', 'e'], 25, -1),
    among!(['o', 's', 'e'], 9, -1),
    among!(['i', 'o', 's', 'e'], 27, -1),
    among!(['u', 'o', 's', 'e'], 27, -1),
    among!(['i', 'u', 'o', 's', 'e'], 29, -1),
    among!(['y', 's', 'e'], 9, -1),
    among!(['e', 'n', 'y', 's', 'e'], 31, -1),
    among!(['e', 'r', 'y', 's', 'e'], 31, -1),
    among!(['ė', 's', 'e'], 9, -1),
    among!(['a', 't', 'e'], 9, -1),
    among!(['i', 'a', 't', 'e'], 35, -1),
    among!(['i', 't', 'e'], 9, -1),
    among!(['k', 'i', 't', 'e'], 37, -1),
    among!(['s', 'i', 't', 'e'], 37, -1),
    among!(['o', 't', 'e'], 9, -1),
    among!(['t', 'u', 't', 'e'], 9, -1),
    among!(['ė', 't', 'e'], 9, -1),
    among!(['t', 'u', 'm', 'ė', 't', 'e'], 42, -1),
    among!(['i'], -1, -1),
    among!(['a', 'i'], 44, -1),
    among!(['i', 'a', 'i'], 45, -1),
    among!(['e', 'r', 'i', 'a', 'i'], 46, -1),
    among!(['e', 'i'], 44, -1),
    among!(['t', 'u', 'm', 'e', 'i'], 48, -1),
    among!(['k', 'i'], 44, -1),
    among!(['i', 'm', 'i'], 44, -1),
    among!(['e', 'r', 'i', 'm', 'i'], 51, -1),
    among!(['u', 'm', 'i'], 44, -1),
    among!(['i', 'u', 'm', 'i'], 53, -1),
    among!(['s', 'i'], 44, -1),
    among!(['a', 's', 'i'], 55, -1),
    among!(['i', 'a', 's', 'i'], 56, -1),
    among!(['e', 's', 'i'], 55, -1),
    among!(['i', 'e', 's', 'i'], 58, -1),
    among!(['s', 'i', 'e', 's', 'i'], 59, -1),
    among!(['i', 's', 'i'], 55, -1),
    among!(['a', 'i', 's', 'i'], 61, -1),
    among!(['e', 'i', 's', 'i'], 61, -1),
    among!(['t', 'u', 'm', 'e', 'i', 's', 'i'], 63, -1),
    among!(['u', 'i', 's', 'i'], 61, -1),
    among!(['o', 's', 'i'], 55, -1),
    among!(['ė', 'j', 'o', 's', 'i'], 66, -1),
    among!(['u', 'o', 's', 'i'], 66, -1),
    among!(['i', 'u', 'o', 's', 'i'], 68, -1),
    among!(['s', 'i', 'u', 'o', 's', 'i'], 69, -1),
    among!(['u', 's', 'i'], 55, -1),
    among!(['a', 'u', 's', 'i'], 71, -1),
    among!(['č', 'i', 'a', 'u', 's', 'i'], 72, -1),
    among!(['ą', 's', 'i'], 55, -1),
    among!(['ė', 's', 'i'], 55, -1),
    among!(['ų', 's', 'i'], 55, -1),
    among!(['t', 'ų', 's', 'i'], 76, -1),
    among!(['t', 'i'], 44, -1),
    among!(['e', 'n', 't', 'i'], 78, -1),
    among!(['i', 'n', 't', 'i'], 78, -1),
    among!(['o', 't', 'i'], 78, -1),
    among!(['i', 'o', 't', 'i'], 81, -1),
    among!(['u', 'o', 't', 'i'], 81, -1),
    among!(['i', 'u', 'o', 't', 'i'], 83, -1),
    among!(['a', 'u', 't', 'i'], 78, -1),
    among!(['i', 'a', 'u', 't', 'i'], 85, -1),
    among!(['y', 't', 'i'], 78, -1),
    among!(['ė', 't', 'i'], 78, -1),
    among!(['t', 'e', 'l', 'ė', 't', 'i'], 88, -1),
    among!(['i', 'n', 'ė', 't', 'i'], 88, -1),
    among!(['t', 'e', 'r', 'ė', 't', 'i'], 88, -1),
    among!(['u', 'i'], 44, -1),
    among!(['i', 'u', 'i'], 92, -1),
    among!(['e', 'n', 'i', 'u', 'i'], 93, -1),
    among!(['o', 'j'], -1, -1),
    among!(['ė', 'j'], -1, -1),
    among!(['k'], -1, -1),
    among!(['a', 'm'], -1, -1),
    among!(['i', 'a', 'm'], 98, -1),
    among!(['i', 'e', 'm'], -1, -1),
    among!(['i', 'm'], -1, -1),
    among!(['s', 'i', 'm'], 101, -1),
    among!(['o', 'm'], -1, -1),
    among!(['t', 'u', 'm'], -1, -1),
    among!(['ė', 'm'], -1, -1),
    among!(['t', 'u', 'm', 'ė', 'm'], 105, -1),
    among!(['a', 'n'], -1, -1),
    among!(['o', 'n'], -1, -1),
    among!(['i', 'o', 'n'], 108, -1),
    among!(['u', 'n'], -1, -1),
    among!(['i', 'u', 'n'], 110, -1),
    among!(['ė', 'n'], -1, -1),
    among!(['o'], -1, -1),
    among!(['i', 'o'], 113, -1),
    among!(['e', 'n', 'i', 'o'], 114, -1),
    among!(['ė', 'j', 'o'], 113, -1),
    among!(['u', 'o'], 113, -1),
    among!(['s'], -1, -1),
    among!(['a', 's'], 118, -1),
    among!(['i', 'a', 's'], 119, -1),
    among!(['e', 's'], 118, -1),
    among!(['i', 'e', 's'], 121, -1),
    among!(['i', 's'], 118, -1),
    among!(['a', 'i', 's'], 123, -1),
    among!(['i', 'a', 'i', 's'], 124, -1),
    among!(['t', 'u', 'm', 'e', 'i', 's'], 123, -1),
    among!(['i', 'm', 'i', 's'], 123, -1),
    among!(['e', 'n', 'i', 'm', 'i', 's'], 127, -1),
    among!(['o', 'm', 'i', 's'], 123, -1),
    among!(['i', 'o', 'm', 'i', 's'], 129, -1),
    among!(['u', 'm', 'i', 's'], 123, -1),
    among!(['ė', 'm', 'i', 's'], 123, -1),
    among!(['e', 'n', 'i', 's'], 123, -1),
    among!(['a', 's', 'i', 's'], 123, -1),
    among!(['y', 's', 'i', 's'], 123, -1),
    among!(['a', 'm', 's'], 118, -1),
    among!(['i', 'a', 'm', 's'], 136, -1),
    among!(['i', 'e', 'm', 's'], 118, -1),
    among!(['i', 'm', 's'], 118, -1),
    among!(['e', 'n', 'i', 'm', 's'], 139, -1),
    among!(['e', 'r', 'i', 'm', 's'], 139, -1),
    among!(['o', 'm', 's'], 118, -1),
    among!(['i', 'o', 'm', 's'], 142, -1),
    among!(['u', 'm', 's'], 118, -1),
    among!(['ė', 'm', 's'], 118, -1),
    among!(['e', 'n', 's'], 118, -1),
    among!(['o', 's'], 118, -1),
    among!(['i', 'o', 's'], 147, -1),
    among!(['u', 'o', 's'], 147, -1),
    among!(['i', 'u', 'o', 's'], 149, -1),
    among!(['e', 'r', 's'], 118, -1),
    among!(['u', 's'], 118, -1),
    among!(['a', 'u', 's'], 152, -1),
    among!(['i', 'a', 'u', 's'], 153, -1),
    among!(['i', 'u', 's'], 152, -1),
    among!(['y', 's'], 118, -1),
    among!(['e', 'n', 'y', 's'], 156, -1),
    among!(['e', 'r', 'y', 's'], 156, -1),
    among!(['ą', 's'], 118, -1),
    among!(['i', 'ą', 's'], 159, -1),
    among!(['ė', 's'], 118, -1),
    among!(['a', 'm', 'ė', 's'], 161, -1),
    among!(['i', 'a', 'm', 'ė', 's'], 162, -1),
    among!(['i', 'm', 'ė', 's'], 161, -1),
    among!(['k', 'i', 'm', 'ė', 's'], 164, -1),
    among!(['s', 'i', 'm', 'ė', 's'], 164, -1),
    among!(['o', 'm', 'ė', 's'], 161, -1),
    among!(['ė', 'm', 'ė', 's'], 161, -1),
    among!(['t', 'u', 'm', 'ė', 'm', 'ė', 's'], 168, -1),
    among!(['a', 't', 'ė', 's'], 161, -1),
    among!(['i', 'a', 't', 'ė', 's'], 170, -1),
    among!(['s', 'i', 't', 'ė', 's'], 161, -1),
    among!(['o', 't', 'ė', 's'], 161, -1),
    among!(['ė', 't', 'ė', 's'], 161, -1),
    among!(['t', 'u', 'm', 'ė', 't', 'ė', 's'], 174, -1),
    among!(['į', 's'], 118, -1),
    among!(['ū', 's'], 118, -1),
    among!(['t', 'ų', 's'], 118, -1),
    among!(['a', 't'], -1, -1),
    among!(['i', 'a', 't'], 179, -1),
    among!(['i', 't'], -1, -1),
    among!(['s', 'i', 't'], 181, -1),
    among!(['o', 't'], -1, -1),
    among!(['ė', 't'], -1, -1),
    among!(['t', 'u', 'm', 'ė', 't'], 184, -1),
    among!(['u'], -1, -1),
    among!(['a', 'u'], 186, -1),
    among!(['i', 'a', 'u'], 187, -1),
    among!(['č', 'i', 'a', 'u'], 188, -1),
    among!(['i', 'u'], 186, -1),
    among!(['e', 'n', 'i', 'u'], 190, -1),
    among!(['s', 'i', 'u'], 190, -1),
    among!(['y'], -1, -1),
    among!(['ą'], -1, -1),
    among!(['i', 'ą'], 194, -1),
    among!(['ė'], -1, -1),
    among!(['ę'], -1, -1),
    among!(['į'], -1, -1),
    among!(['e', 'n', 'į'], 198, -1),
    among!(['e', 'r', 'į'], 198, -1),
    among!(['ų'], -1, -1),
    among!(['i', 'ų'], 201, -1),
    among!(['e', 'r', 'ų'], 201, -1),
];

static A_1: [Among; 62] = [
    among!(['i', 'n', 'g'], -1, -1),
    among!(['a', 'j'], -1, -1),
    among!(['i', 'a', 'j'], 1, -1),
    among!(['i', 'e', 'j'], -1, -1),
    among!(['o', 'j'], -1, -1),
    among!(['i', 'o', 'j'], 4, -1),
    among!(['u', 'o', 'j'], 4, -1),
    among!(['i', 'u', 'o', 'j'], 6, -1),
    among!(['a', 'u', 'j'], -1, -1),
    among!(['ą', 'j'], -1, -1),
    among!(['i', 'ą', 'j'], 9, -1),
    among!(['ė', 'j'], -1, -1),
    among!(['ų', 'j'], -1, -1),
    among!(['i', 'ų', 'j'], 12, -1),
    among!(['o', 'k'], -1, -1),
    among!(['i', 'o', 'k'], 14, -1),
    among!(['i', 'u', 'k'], -1, -1),
    among!(['u', 'l', 'i', 'u', 'k'], 16, -1),
    among!(['u', 'č', 'i', 'u', 'k'], 16, -1),
    among!(['i', 'š', 'k'], -1, -1),
    among!(['i', 'u', 'l'], -1, -1),
    among!(['y', 'l'], -1, -1),
    among!(['ė', 'l'], -1, -1),
    among!(['a', 'm'], -1, -1),
    among!(['d', 'a', 'm'], 23, -1),
    among!(['j', 'a', 'm'], 23, -1),
    among!(['z', 'g', 'a', 'n'], -1, -1),
    among!(['a', 'i', 'n'], -1, -1),
    among!(['e', 's', 'n'], -1, -1),
    among!(['o', 'p'], -1, -1),
    among!(['i', 'o', 'p'], 29, -1),
    among!(['i', 'a', 's'], -1, -1),
    among!(['i', 'e', 's'], -1, -1),
    among!(['a', 'i', 's'], -1, -1),
    among!(['i', 'a', 'i', 's'], 33, -1),
    among!(['o', 's'], -1, -1),
    among!(['i', 'o', 's'], 35, -1),
    among!(['u', 'o', 's'], 35, -1),
    among!(['i', 'u', 'o', 's'], 37, -1),
    among!(['a', 'u', 's'], -1, -1),
    among!(['i', 'a', 'u', 's'], 39, -1),
    among!(['ą', 's'], -1, -1),
    among!(['i', 'ą', 's'], 41, -1),
    among!(['ę', 's'], -1, -1),
    among!(['u', 't', 'ė', 'a', 'i', 't'], -1, -1),
    among!(['a', 'n', 't'], -1, -1),
    among!(['i', 'a', 'n', 't'], 45, -1),
    among!(['s', 'i', 'a', 'n', 't'], 46, -1),
    among!(['i', 'n', 't'], -1, -1),
    among!(['o', 't'], -1, -1),
    among!(['u', 'o', 't'], 49, -1),
    among!(['i', 'u', 'o', 't'], 50, -1),
    among!(['y', 't'], -1, -1),
    among!(['ė', 't'], -1, -1),
    among!(['y', 'k', 'š', 't'], -1, -1),
    among!(['i', 'a', 'u'], -1, -1),
    among!(['d', 'a', 'v'], -1, -1),
    among!(['s', 'v'], -1, -1),
    among!(['š', 'v'], -1, -1),
    among!(['y', 'k', 'š', 'č'], -1, -1),
    among!(['ę'], -1, -1),
    among!(['ė', 'j', 'ę'], 60, -1),
];

static A_2: [Among; 11] = [
    among!(['o', 'j', 'i', 'm', 'e'], -1, 7),
    among!(['ė', 'j', 'i', 'm', 'e'], -1, 3),
    among!(['a', 'v', 'i', 'm', 'e'], -1, 6),
    among!(['o', 'k', 'a', 't', 'e'], -1, 8),
    among!(['a', 'i', 't', 'e'], -1, 1),
    among!(['u', 'o', 't', 'e'], -1, 2),
    among!(['a', 's', 'i', 'u', 's'], -1, 5),
    among!(['o', 'k', 'a', 't', 'ė', 's'], -1, 8),
    among!(['a', 'i', 't', 'ė', 's'], -1, 1),
    among!(['u', 'o', 't', 'ė', 's'], -1, 2),
    among!(['e', 's', 'i', 'u'], -1, 4),
];

static A_3: [Among; 2] = [among!(['č'], -1, 1), among!(['d', 'ž'], -1, 2)];

static A_4: [Among; 1] = [among!(['g', 'd'], -1, 1)];

/// The stemmer's state: the buffer and the program's own variables.
pub(super) struct LithuanianStemmer {
    env: Env,
    i_p1: i32,
}

impl std::ops::Deref for LithuanianStemmer {
    type Target = Env;
    fn deref(&self) -> &Env {
        &self.env
    }
}

impl std::ops::DerefMut for LithuanianStemmer {
    fn deref_mut(&mut self) -> &mut Env {
        &mut self.env
    }
}

/// The Lithuanian stem of `word`.
pub fn stem(word: &str) -> String {
    let mut program = LithuanianStemmer { env: Env::new(word), i_p1: 0 };
    program.stem_program();
    program.env.into_string()
}

impl LithuanianStemmer {
    fn r_step1(&mut self) -> bool {
        if self.cursor < self.i_p1 {
            return false;
        }
        let v_2 = self.limit_backward;
        self.limit_backward = self.i_p1;
        self.ket = self.cursor;
        if self.find_among_b(&A_0) == 0 {
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

    fn r_step2(&mut self) -> bool {
        'loop1: loop {
            if self.out_of_fuel() {
                return false;
            }
            let v_1 = self.limit - self.cursor;
            'lab0: {
                if self.cursor < self.i_p1 {
                    break 'lab0;
                }
                let v_3 = self.limit_backward;
                self.limit_backward = self.i_p1;
                self.ket = self.cursor;
                if self.find_among_b(&A_1) == 0 {
                    self.limit_backward = v_3;
                    break 'lab0;
                }
                self.bra = self.cursor;
                self.limit_backward = v_3;
                if !self.slice_del() {
                    return false;
                }
                continue 'loop1;
            }
            self.cursor = self.limit - v_1;
            break 'loop1;
        }
        return true;
    }

    fn r_fix_conflicts(&mut self) -> bool {
        self.ket = self.cursor;
        let among_var = self.find_among_b(&A_2);
        if among_var == 0 {
            return false;
        }
        self.bra = self.cursor;
        if among_var == 1 {
            if !self.slice_from("aitė") {
                return false;
            }
        } else if among_var == 2 {
            if !self.slice_from("uotė") {
                return false;
            }
        } else if among_var == 3 {
            if !self.slice_from("ėjimas") {
                return false;
            }
        } else if among_var == 4 {
            if !self.slice_from("esys") {
                return false;
            }
        } else if among_var == 5 {
            if !self.slice_from("asys") {
                return false;
            }
        } else if among_var == 6 {
            if !self.slice_from("avimas") {
                return false;
            }
        } else if among_var == 7 {
            if !self.slice_from("ojimas") {
                return false;
            }
        } else {
            if !self.slice_from("okatė") {
                return false;
            }
        }
        return true;
    }

    fn r_fix_chdz(&mut self) -> bool {
        self.ket = self.cursor;
        let among_var = self.find_among_b(&A_3);
        if among_var == 0 {
            return false;
        }
        self.bra = self.cursor;
        if among_var == 1 {
            if !self.slice_from("t") {
                return false;
            }
        } else {
            if !self.slice_from("d") {
                return false;
            }
        }
        return true;
    }

    fn r_fix_gd(&mut self) -> bool {
        self.ket = self.cursor;
        if self.find_among_b(&A_4) == 0 {
            return false;
        }
        self.bra = self.cursor;
        if !self.slice_from("g") {
            return false;
        }
        return true;
    }

    fn stem_program(&mut self) -> bool {
        self.i_p1 = self.limit;
        let v_1 = self.cursor;
        'lab0: {
            let v_2 = self.cursor;
            'lab1: {
                let v_3 = self.cursor;
                if !self.eq_s("a") {
                    self.cursor = v_2;
                    break 'lab1;
                }
                self.cursor = v_3;
                if self.length() <= 6 {
                    self.cursor = v_2;
                    break 'lab1;
                }
                if self.cursor >= self.limit {
                    self.cursor = v_2;
                    break 'lab1;
                }
                self.cursor += 1;
            }
            if !self.go_out_grouping(G_V) {
                break 'lab0;
            }
            self.cursor += 1;
            if !self.go_in_grouping(G_V) {
                break 'lab0;
            }
            self.cursor += 1;
            self.i_p1 = self.cursor;
        }
        self.cursor = v_1;
        self.limit_backward = self.cursor;
        self.cursor = self.limit;
        let v_4 = self.limit - self.cursor;
        self.r_fix_conflicts();
        self.cursor = self.limit - v_4;
        let v_5 = self.limit - self.cursor;
        self.r_step1();
        self.cursor = self.limit - v_5;
        let v_6 = self.limit - self.cursor;
        self.r_fix_chdz();
        self.cursor = self.limit - v_6;
        let v_7 = self.limit - self.cursor;
        self.r_step2();
        self.cursor = self.limit - v_7;
        let v_8 = self.limit - self.cursor;
        self.r_fix_chdz();
        self.cursor = self.limit - v_8;
        let v_9 = self.limit - self.cursor;
        self.r_fix_gd();
        self.cursor = self.limit - v_9;
        self.cursor = self.limit_backward;
        return true;
    }
}
