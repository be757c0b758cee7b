//! Snowball's Yiddish stemmer, transcribed from the code the Snowball compiler generates for
//! `yiddish.sbl` (as Lucene's `org.tartarus.snowball.ext.YiddishStemmer`) by
//! `tests/golden/analysis/snowball/py2rust.py`; runs on [`super::env::Env`].

#![allow(clippy::all, unused_parens, unused_variables, unused_labels)]

use super::among;
use super::env::{Among, Env};

const G_NIKED: &[u16] = &[
    'ְ' as u16,
    'ֱ' as u16,
    'ֲ' as u16,
    'ֳ' as u16,
    'ִ' as u16,
    'ֵ' as u16,
    'ֶ' as u16,
    'ַ' as u16,
    'ָ' as u16,
    'ֹ' as u16,
    'ֻ' as u16,
    'ּ' as u16,
    'ֿ' as u16,
    'ׁ' as u16,
    'ׂ' as u16,
];
const G_VOWEL: &[u16] = &['א' as u16, 'ו' as u16, 'י' as u16, 'ע' as u16, 'ױ' as u16, 'ײ' as u16];
const G_CONSONANT: &[u16] = &[
    'ב' as u16,
    'ג' as u16,
    'ד' as u16,
    'ה' as u16,
    'ז' as u16,
    'ח' as u16,
    'ט' as u16,
    'ך' as u16,
    'כ' as u16,
    'ל' as u16,
    'ם' as u16,
    'מ' as u16,
    'ן' as u16,
    'נ' as u16,
    'ס' as u16,
    'ף' as u16,
    'פ' as u16,
    'ץ' as u16,
    'צ' as u16,
    'ק' as u16,
    'ר' as u16,
    'ש' as u16,
    'ת' as u16,
    'װ' as u16,
];

static A_0: [Among; 8] = [
    among!(['ו', 'ו'], -1, 1),
    among!(['ו', 'י'], -1, 2),
    among!(['י', 'י'], -1, 3),
    among!(['ך'], -1, 4),
    among!(['ם'], -1, 5),
    among!(['ן'], -1, 6),
    among!(['ף'], -1, 7),
    among!(['ץ'], -1, 8),
];

static A_1: [Among; 40] = [
    among!(['א', 'ד', 'ו', 'ר', 'כ'], -1, 1),
    among!(['א', 'ה', 'י', 'נ'], -1, 1),
    among!(['א', 'ה', 'ע', 'ר'], -1, 1),
    among!(['א', 'ה', 'ײ', 'מ'], -1, 1),
    among!(['א', 'ו', 'מ'], -1, 1),
    among!(['א', 'ו', 'נ', 'ט', 'ע', 'ר'], -1, 1),
    among!(['א', 'י', 'ב', 'ע', 'ר'], -1, 1),
    among!(['א', 'נ'], -1, 1),
    among!(['א', 'נ', 'ט'], 7, 1),
    among!(['א', 'נ', 'ט', 'ק', 'ע', 'ג', 'נ'], 8, 1),
    among!(['א', 'נ', 'י', 'ד', 'ע', 'ר'], 7, 1),
    among!(['א', 'פ'], -1, 1),
    among!(['א', 'פ', 'י', 'ר'], 11, 1),
    among!(['א', 'ק', 'ע', 'ג', 'נ'], -1, 1),
    among!(['א', 'ר', 'א', 'פ'], -1, 1),
    among!(['א', 'ר', 'ו', 'מ'], -1, 1),
    among!(['א', 'ר', 'ו', 'נ', 'ט', 'ע', 'ר'], -1, 1),
    among!(['א', 'ר', 'י', 'ב', 'ע', 'ר'], -1, 1),
    among!(['א', 'ר', 'ױ', 'ס'], -1, 1),
    among!(['א', 'ר', 'ױ', 'פ'], -1, 1),
    among!(['א', 'ר', 'ײ', 'נ'], -1, 1),
    among!(['א', 'װ', 'ע', 'ק'], -1, 1),
    among!(['א', 'ױ', 'ס'], -1, 1),
    among!(['א', 'ױ', 'פ'], -1, 1),
    among!(['א', 'ײ', 'נ'], -1, 1),
    among!(['ב', 'א'], -1, 1),
    among!(['ב', 'ײ'], -1, 1),
    among!(['ד', 'ו', 'ר', 'כ'], -1, 1),
    among!(['ד', 'ע', 'ר'], -1, 1),
    among!(['מ', 'י', 'ט'], -1, 1),
    among!(['נ', 'א', 'כ'], -1, 1),
    among!(['פ', 'א', 'ר'], -1, 1),
    among!(['פ', 'א', 'ר', 'ב', 'ײ'], 31, 1),
    among!(['פ', 'א', 'ר', 'ױ', 'ס'], 31, 1),
    among!(['פ', 'ו', 'נ', 'א', 'נ', 'ד', 'ע', 'ר'], -1, 1),
    among!(['צ', 'ו'], -1, 1),
    among!(['צ', 'ו', 'ז', 'א', 'מ', 'ע', 'נ'], 35, 1),
    among!(['צ', 'ו', 'נ', 'ױ', 'פ'], 35, 1),
    among!(['צ', 'ו', 'ר', 'י', 'ק'], 35, 1),
    among!(['צ', 'ע'], -1, 1),
];

static A_2: [Among; 4] = [
    among!(['ד', 'ז', 'ש'], -1, -1),
    among!(['ש', 'ט', 'ר'], -1, -1),
    among!(['ש', 'ט', 'ש'], -1, -1),
    among!(['ש', 'פ', 'ר'], -1, -1),
];

static A_3: [Among; 26] = [
    among!(['ק', 'ל', 'י', 'ב'], -1, 9),
    among!(['ר', 'י', 'ב'], -1, 10),
    among!(['ט', 'ר', 'י', 'ב'], 1, 7),
    among!(['ש', 'ר', 'י', 'ב'], 1, 15),
    among!(['ה', 'ױ', 'ב'], -1, 23),
    among!(['ש', 'װ', 'י', 'ג'], -1, 12),
    among!(['ג', 'א', 'נ', 'ג'], -1, 1),
    among!(['ז', 'ו', 'נ', 'ג'], -1, 18),
    among!(['ש', 'ל', 'ו', 'נ', 'ג'], -1, 21),
    among!(['צ', 'װ', 'ו', 'נ', 'ג'], -1, 20),
    among!(['ב', 'ױ', 'ג'], -1, 22),
    among!(['ב', 'ו', 'נ', 'ד'], -1, 16),
    among!(['װ', 'י', 'ז'], -1, 6),
    among!(['ב', 'י', 'ט'], -1, 4),
    among!(['ל', 'י', 'ט'], -1, 8),
    among!(['מ', 'י', 'ט'], -1, 3),
    among!(['ש', 'נ', 'י', 'ט'], -1, 14),
    among!(['נ', 'ו', 'מ'], -1, 2),
    among!(['ש', 'ט', 'א', 'נ'], -1, 25),
    among!(['ב', 'י', 'ס'], -1, 5),
    among!(['ש', 'מ', 'י', 'ס'], -1, 13),
    among!(['ר', 'י', 'ס'], -1, 11),
    among!(['ט', 'ר', 'ו', 'נ', 'ק'], -1, 19),
    among!(['פ', 'א', 'ר', 'ל', 'ױ', 'ר'], -1, 24),
    among!(['ש', 'װ', 'ױ', 'ר'], -1, 26),
    among!(['װ', 'ו', 'ט', 'ש'], -1, 17),
];

static A_4: [Among; 79] = [
    among!(['ו', 'נ', 'ג'], -1, 1),
    among!(['ס', 'ט', 'ו'], -1, 1),
    among!(['ט'], -1, 1),
    among!(['ב', 'ר', 'א', 'כ', 'ט'], 2, 31),
    among!(['ס', 'ט'], 2, 1),
    among!(['י', 'ס', 'ט'], 4, 33),
    among!(['ע', 'ט'], 2, 1),
    among!(['ש', 'א', 'פ', 'ט'], 2, 1),
    among!(['ה', 'ײ', 'ט'], 2, 1),
    among!(['ק', 'ײ', 'ט'], 2, 1),
    among!(['י', 'ק', 'ײ', 'ט'], 9, 1),
    among!(['ל', 'ע', 'כ'], -1, 1),
    among!(['ע', 'ל', 'ע', 'כ'], 11, 1),
    among!(['י', 'ז', 'מ'], -1, 1),
    among!(['י', 'מ'], -1, 1),
    among!(['ע', 'מ'], -1, 1),
    among!(['ע', 'נ', 'ע', 'מ'], 15, 3),
    among!(['ט', 'ע', 'נ', 'ע', 'מ'], 16, 4),
    among!(['נ'], -1, 1),
    among!(['ק', 'ל', 'י', 'ב', 'נ'], 18, 14),
    among!(['ר', 'י', 'ב', 'נ'], 18, 15),
    among!(['ט', 'ר', 'י', 'ב', 'נ'], 20, 12),
    among!(['ש', 'ר', 'י', 'ב', 'נ'], 20, 7),
    among!(['ה', 'ױ', 'ב', 'נ'], 18, 27),
    among!(['ש', 'װ', 'י', 'ג', 'נ'], 18, 17),
    among!(['ז', 'ו', 'נ', 'ג', 'נ'], 18, 22),
    among!(['ש', 'ל', 'ו', 'נ', 'ג', 'נ'], 18, 25),
    among!(['צ', 'װ', 'ו', 'נ', 'ג', 'נ'], 18, 24),
    among!(['ב', 'ױ', 'ג', 'נ'], 18, 26),
    among!(['ב', 'ו', 'נ', 'ד', 'נ'], 18, 20),
    among!(['װ', 'י', 'ז', 'נ'], 18, 11),
    among!(['ט', 'נ'], 18, 4),
    among!(['G', 'E', 'ב', 'י', 'ט', 'נ'], 31, 9),
    among!(['G', 'E', 'ל', 'י', 'ט', 'נ'], 31, 13),
    among!(['G', 'E', 'מ', 'י', 'ט', 'נ'], 31, 8),
    among!(['ש', 'נ', 'י', 'ט', 'נ'], 31, 19),
    among!(['ס', 'ט', 'נ'], 31, 1),
    among!(['י', 'ס', 'ט', 'נ'], 36, 1),
    among!(['ע', 'ט', 'נ'], 31, 1),
    among!(['G', 'E', 'ב', 'י', 'ס', 'נ'], 18, 10),
    among!(['ש', 'מ', 'י', 'ס', 'נ'], 18, 18),
    among!(['G', 'E', 'ר', 'י', 'ס', 'נ'], 18, 16),
    among!(['ע', 'נ'], 18, 1),
    among!(['ג', 'א', 'נ', 'ג', 'ע', 'נ'], 42, 5),
    among!(['ע', 'ל', 'ע', 'נ'], 42, 1),
    among!(['נ', 'ו', 'מ', 'ע', 'נ'], 42, 6),
    among!(['י', 'ז', 'מ', 'ע', 'נ'], 42, 1),
    among!(['ש', 'ט', 'א', 'נ', 'ע', 'נ'], 42, 29),
    among!(['ט', 'ר', 'ו', 'נ', 'ק', 'נ'], 18, 23),
    among!(['פ', 'א', 'ר', 'ל', 'ױ', 'ר', 'נ'], 18, 28),
    among!(['ש', 'װ', 'ױ', 'ר', 'נ'], 18, 30),
    among!(['װ', 'ו', 'ט', 'ש', 'נ'], 18, 21),
    among!(['ג', 'ײ', 'נ'], 18, 5),
    among!(['ס'], -1, 1),
    among!(['ט', 'ס'], 53, 4),
    among!(['ע', 'ט', 'ס'], 54, 1),
    among!(['נ', 'ס'], 53, 1),
    among!(['ט', 'נ', 'ס'], 56, 4),
    among!(['ע', 'נ', 'ס'], 56, 3),
    among!(['ע', 'ס'], 53, 1),
    among!(['י', 'ע', 'ס'], 59, 2),
    among!(['ע', 'ל', 'ע', 'ס'], 59, 1),
    among!(['ע', 'ר', 'ס'], 53, 1),
    among!(['ע', 'נ', 'ע', 'ר', 'ס'], 62, 1),
    among!(['ע'], -1, 1),
    among!(['ט', 'ע'], 64, 4),
    among!(['ס', 'ט', 'ע'], 65, 1),
    among!(['ע', 'ט', 'ע'], 65, 1),
    among!(['י', 'ע'], 64, -1),
    among!(['ע', 'ל', 'ע'], 64, 1),
    among!(['ע', 'נ', 'ע'], 64, 3),
    among!(['ט', 'ע', 'נ', 'ע'], 70, 4),
    among!(['ע', 'ר'], -1, 1),
    among!(['ט', 'ע', 'ר'], 72, 4),
    among!(['ס', 'ט', 'ע', 'ר'], 73, 1),
    among!(['ע', 'ט', 'ע', 'ר'], 73, 1),
    among!(['ע', 'נ', 'ע', 'ר'], 72, 3),
    among!(['ט', 'ע', 'נ', 'ע', 'ר'], 76, 4),
    among!(['ו', 'ת'], -1, 32),
];

static A_5: [Among; 6] = [
    among!(['ו', 'נ', 'ג'], -1, 1),
    among!(['ש', 'א', 'פ', 'ט'], -1, 1),
    among!(['ה', 'ײ', 'ט'], -1, 1),
    among!(['ק', 'ײ', 'ט'], -1, 1),
    among!(['י', 'ק', 'ײ', 'ט'], 3, 1),
    among!(['ל'], -1, 2),
];

static A_6: [Among; 9] = [
    among!(['י', 'ג'], -1, 1),
    among!(['י', 'ק'], -1, 1),
    among!(['ד', 'י', 'ק'], 1, 1),
    among!(['נ', 'ד', 'י', 'ק'], 2, 1),
    among!(['ע', 'נ', 'ד', 'י', 'ק'], 3, 1),
    among!(['ב', 'ל', 'י', 'ק'], 1, -1),
    among!(['ג', 'ל', 'י', 'ק'], 1, -1),
    among!(['נ', 'י', 'ק'], 1, 1),
    among!(['י', 'ש'], -1, 1),
];

/// The stemmer's state: the buffer and the program's own variables.
pub(super) struct YiddishStemmer {
    env: Env,
    i_x: i32,
    i_p1: i32,
}

impl std::ops::Deref for YiddishStemmer {
    type Target = Env;
    fn deref(&self) -> &Env {
        &self.env
    }
}

impl std::ops::DerefMut for YiddishStemmer {
    fn deref_mut(&mut self) -> &mut Env {
        &mut self.env
    }
}

/// The Yiddish stem of `word`.
pub fn stem(word: &str) -> String {
    let mut program = YiddishStemmer { env: Env::new(word), i_x: 0, i_p1: 0 };
    program.stem_program();
    program.env.into_string()
}

impl YiddishStemmer {
    fn r_prelude(&mut self) -> bool {
        let v_1 = self.cursor;
        'lab0: {
            'loop1: loop {
                if self.out_of_fuel() {
                    return false;
                }
                let v_2 = self.cursor;
                'lab1: {
                    'lab2: {
                        'loop2: loop {
                            if self.out_of_fuel() {
                                return false;
                            }
                            let v_3 = self.cursor;
                            'lab3: {
                                self.bra = self.cursor;
                                let among_var = self.find_among(&A_0);
                                if among_var == 0 {
                                    break 'lab3;
                                }
                                self.ket = self.cursor;
                                if among_var == 1 {
                                    let v_4 = self.cursor;
                                    'lab4: {
                                        if !self.eq_s("\u{05BC}") {
                                            break 'lab4;
                                        }
                                        break 'lab3;
                                    }
                                    self.cursor = v_4;
                                    if !self.slice_from("\u{05F0}") {
                                        return false;
                                    }
                                } else if among_var == 2 {
                                    let v_5 = self.cursor;
                                    'lab5: {
                                        if !self.eq_s("\u{05B4}") {
                                            break 'lab5;
                                        }
                                        break 'lab3;
                                    }
                                    self.cursor = v_5;
                                    if !self.slice_from("\u{05F1}") {
                                        return false;
                                    }
                                } else if among_var == 3 {
                                    let v_6 = self.cursor;
                                    'lab6: {
                                        if !self.eq_s("\u{05B4}") {
                                            break 'lab6;
                                        }
                                        break 'lab3;
                                    }
                                    self.cursor = v_6;
                                    if !self.slice_from("\u{05F2}") {
                                        return false;
                                    }
                                } else if among_var == 4 {
                                    if !self.slice_from("\u{05DB}") {
                                        return false;
                                    }
                                } else if among_var == 5 {
                                    if !self.slice_from("\u{05DE}") {
                                        return false;
                                    }
                                } else if among_var == 6 {
                                    if !self.slice_from("\u{05E0}") {
                                        return false;
                                    }
                                } else if among_var == 7 {
                                    if !self.slice_from("\u{05E4}") {
                                        return false;
                                    }
                                } else {
                                    if !self.slice_from("\u{05E6}") {
                                        return false;
                                    }
                                }
                                self.cursor = v_3;
                                break 'lab2;
                            }
                            self.cursor = v_3;
                            if self.cursor >= self.limit {
                                break 'lab1;
                            }
                            self.cursor += 1;
                        }
                    }
                    continue 'loop1;
                }
                self.cursor = v_2;
                break 'loop1;
            }
        }
        self.cursor = v_1;
        let v_7 = self.cursor;
        'lab7: {
            'loop3: loop {
                if self.out_of_fuel() {
                    return false;
                }
                let v_8 = self.cursor;
                'lab8: {
                    'lab9: {
                        'loop4: loop {
                            if self.out_of_fuel() {
                                return false;
                            }
                            let v_9 = self.cursor;
                            'lab10: {
                                self.bra = self.cursor;
                                if !self.in_grouping(G_NIKED) {
                                    break 'lab10;
                                }
                                self.ket = self.cursor;
                                if !self.slice_del() {
                                    return false;
                                }
                                self.cursor = v_9;
                                break 'lab9;
                            }
                            self.cursor = v_9;
                            if self.cursor >= self.limit {
                                break 'lab8;
                            }
                            self.cursor += 1;
                        }
                    }
                    continue 'loop3;
                }
                self.cursor = v_8;
                break 'loop3;
            }
        }
        self.cursor = v_7;
        return true;
    }

    fn r_mark_regions(&mut self) -> bool {
        self.i_p1 = self.limit;
        let v_1 = self.cursor;
        'lab0: {
            self.bra = self.cursor;
            if !self.eq_s("\u{05D2}\u{05E2}") {
                self.cursor = v_1;
                break 'lab0;
            }
            self.ket = self.cursor;
            let v_2 = self.cursor;
            'lab1: {
                'lab2: {
                    let v_3 = self.cursor;
                    'lab3: {
                        if !self.eq_s("\u{05DC}\u{05D8}") {
                            break 'lab3;
                        }
                        break 'lab2;
                    }
                    self.cursor = v_3;
                    'lab4: {
                        if !self.eq_s("\u{05D1}\u{05E0}") {
                            break 'lab4;
                        }
                        break 'lab2;
                    }
                    self.cursor = v_3;
                    if self.cursor < self.limit {
                        break 'lab1;
                    }
                }
                self.cursor = v_1;
                break 'lab0;
            }
            self.cursor = v_2;
            if !self.slice_from("GE") {
                return false;
            }
        }
        let v_4 = self.cursor;
        'lab5: {
            if self.find_among(&A_1) == 0 {
                self.cursor = v_4;
                break 'lab5;
            }
            'lab6: {
                let v_5 = self.cursor;
                'lab7: {
                    let v_6 = self.cursor;
                    'lab8: {
                        let v_7 = self.cursor;
                        'lab9: {
                            if !self.eq_s("\u{05E6}\u{05D5}\u{05D2}\u{05E0}") {
                                break 'lab9;
                            }
                            break 'lab8;
                        }
                        self.cursor = v_7;
                        'lab10: {
                            if !self.eq_s("\u{05E6}\u{05D5}\u{05E7}\u{05D8}") {
                                break 'lab10;
                            }
                            break 'lab8;
                        }
                        self.cursor = v_7;
                        if !self.eq_s("\u{05E6}\u{05D5}\u{05E7}\u{05E0}") {
                            break 'lab7;
                        }
                    }
                    if self.cursor < self.limit {
                        break 'lab7;
                    }
                    self.cursor = v_6;
                    break 'lab6;
                }
                self.cursor = v_5;
                'lab11: {
                    let v_8 = self.cursor;
                    if !self.eq_s("\u{05D2}\u{05E2}\u{05D1}\u{05E0}") {
                        break 'lab11;
                    }
                    self.cursor = v_8;
                    break 'lab6;
                }
                self.cursor = v_5;
                'lab12: {
                    self.bra = self.cursor;
                    if !self.eq_s("\u{05D2}\u{05E2}") {
                        break 'lab12;
                    }
                    self.ket = self.cursor;
                    if !self.slice_from("GE") {
                        return false;
                    }
                    break 'lab6;
                }
                self.cursor = v_5;
                self.bra = self.cursor;
                if !self.eq_s("\u{05E6}\u{05D5}") {
                    self.cursor = v_4;
                    break 'lab5;
                }
                self.ket = self.cursor;
                if !self.slice_from("TSU") {
                    return false;
                }
            }
        }
        let v_9 = self.cursor;
        let c = self.cursor + 3;
        if c > self.limit {
            return false;
        }
        self.cursor = c;
        self.i_x = self.cursor;
        self.cursor = v_9;
        let v_10 = self.cursor;
        'lab13: {
            if self.find_among(&A_2) == 0 {
                self.cursor = v_10;
                break 'lab13;
            }
        }
        let v_11 = self.cursor;
        'lab14: {
            if !self.in_grouping(G_CONSONANT) {
                break 'lab14;
            }
            if !self.in_grouping(G_CONSONANT) {
                break 'lab14;
            }
            if !self.in_grouping(G_CONSONANT) {
                break 'lab14;
            }
            self.i_p1 = self.cursor;
            return false;
        }
        self.cursor = v_11;
        if !self.go_out_grouping(G_VOWEL) {
            return false;
        }
        self.cursor += 1;
        if !self.go_in_grouping(G_VOWEL) {
            return false;
        }
        self.i_p1 = self.cursor;
        'lab15: {
            if self.i_p1 >= self.i_x {
                break 'lab15;
            }
            self.i_p1 = self.i_x;
        }
        return true;
    }

    fn r_r1(&mut self) -> bool {
        return self.i_p1 <= self.cursor;
    }

    fn r_r1plus3(&mut self) -> bool {
        return self.i_p1 <= (self.cursor + 3);
    }

    fn r_standard_suffix(&mut self) -> bool {
        let v_1 = self.limit - self.cursor;
        'lab0: {
            self.ket = self.cursor;
            let among_var = self.find_among_b(&A_4);
            if among_var == 0 {
                break 'lab0;
            }
            self.bra = self.cursor;
            if among_var == 1 {
                if !self.r_r1() {
                    break 'lab0;
                }
                if !self.slice_del() {
                    return false;
                }
            } else if among_var == 2 {
                if !self.r_r1() {
                    break 'lab0;
                }
                if !self.slice_from("\u{05D9}\u{05E2}") {
                    return false;
                }
            } else if among_var == 3 {
                if !self.r_r1() {
                    break 'lab0;
                }
                if !self.slice_del() {
                    return false;
                }
                self.ket = self.cursor;
                let among_var = self.find_among_b(&A_3);
                if among_var == 0 {
                    break 'lab0;
                }
                self.bra = self.cursor;
                if among_var == 1 {
                    if !self.slice_from("\u{05D2}\u{05F2}") {
                        return false;
                    }
                } else if among_var == 2 {
                    if !self.slice_from("\u{05E0}\u{05E2}\u{05DE}") {
                        return false;
                    }
                } else if among_var == 3 {
                    if !self.slice_from("\u{05DE}\u{05F2}\u{05D3}") {
                        return false;
                    }
                } else if among_var == 4 {
                    if !self.slice_from("\u{05D1}\u{05F2}\u{05D8}") {
                        return false;
                    }
                } else if among_var == 5 {
                    if !self.slice_from("\u{05D1}\u{05F2}\u{05E1}") {
                        return false;
                    }
                } else if among_var == 6 {
                    if !self.slice_from("\u{05F0}\u{05F2}\u{05D6}") {
                        return false;
                    }
                } else if among_var == 7 {
                    if !self.slice_from("\u{05D8}\u{05E8}\u{05F2}\u{05D1}") {
                        return false;
                    }
                } else if among_var == 8 {
                    if !self.slice_from("\u{05DC}\u{05F2}\u{05D8}") {
                        return false;
                    }
                } else if among_var == 9 {
                    if !self.slice_from("\u{05E7}\u{05DC}\u{05F2}\u{05D1}") {
                        return false;
                    }
                } else if among_var == 10 {
                    if !self.slice_from("\u{05E8}\u{05F2}\u{05D1}") {
                        return false;
                    }
                } else if among_var == 11 {
                    if !self.slice_from("\u{05E8}\u{05F2}\u{05E1}") {
                        return false;
                    }
                } else if among_var == 12 {
                    if !self.slice_from("\u{05E9}\u{05F0}\u{05F2}\u{05D2}") {
                        return false;
                    }
                } else if among_var == 13 {
                    if !self.slice_from("\u{05E9}\u{05DE}\u{05F2}\u{05E1}") {
                        return false;
                    }
                } else if among_var == 14 {
                    if !self.slice_from("\u{05E9}\u{05E0}\u{05F2}\u{05D3}") {
                        return false;
                    }
                } else if among_var == 15 {
                    if !self.slice_from("\u{05E9}\u{05E8}\u{05F2}\u{05D1}") {
                        return false;
                    }
                } else if among_var == 16 {
                    if !self.slice_from("\u{05D1}\u{05D9}\u{05E0}\u{05D3}") {
                        return false;
                    }
                } else if among_var == 17 {
                    if !self.slice_from("\u{05F0}\u{05D9}\u{05D8}\u{05E9}") {
                        return false;
                    }
                } else if among_var == 18 {
                    if !self.slice_from("\u{05D6}\u{05D9}\u{05E0}\u{05D2}") {
                        return false;
                    }
                } else if among_var == 19 {
                    if !self.slice_from("\u{05D8}\u{05E8}\u{05D9}\u{05E0}\u{05E7}") {
                        return false;
                    }
                } else if among_var == 20 {
                    if !self.slice_from("\u{05E6}\u{05F0}\u{05D9}\u{05E0}\u{05D2}") {
                        return false;
                    }
                } else if among_var == 21 {
                    if !self.slice_from("\u{05E9}\u{05DC}\u{05D9}\u{05E0}\u{05D2}") {
                        return false;
                    }
                } else if among_var == 22 {
                    if !self.slice_from("\u{05D1}\u{05F2}\u{05D2}") {
                        return false;
                    }
                } else if among_var == 23 {
                    if !self.slice_from("\u{05D4}\u{05F2}\u{05D1}") {
                        return false;
                    }
                } else if among_var == 24 {
                    if !self.slice_from("\u{05E4}\u{05D0}\u{05E8}\u{05DC}\u{05D9}\u{05E8}") {
                        return false;
                    }
                } else if among_var == 25 {
                    if !self.slice_from("\u{05E9}\u{05D8}\u{05F2}") {
                        return false;
                    }
                } else {
                    if !self.slice_from("\u{05E9}\u{05F0}\u{05E2}\u{05E8}") {
                        return false;
                    }
                }
            } else if among_var == 4 {
                'lab1: {
                    let v_2 = self.limit - self.cursor;
                    'lab2: {
                        if !self.r_r1() {
                            break 'lab2;
                        }
                        if !self.slice_del() {
                            return false;
                        }
                        break 'lab1;
                    }
                    self.cursor = self.limit - v_2;
                    if !self.slice_from("\u{05D8}") {
                        return false;
                    }
                }
                self.ket = self.cursor;
                if !self.eq_s_b("\u{05D1}\u{05E8}\u{05D0}\u{05DB}") {
                    break 'lab0;
                }
                let v_3 = self.limit - self.cursor;
                'lab3: {
                    if !self.eq_s_b("\u{05D2}\u{05E2}") {
                        self.cursor = self.limit - v_3;
                        break 'lab3;
                    }
                }
                self.bra = self.cursor;
                if !self.slice_from("\u{05D1}\u{05E8}\u{05E2}\u{05E0}\u{05D2}") {
                    return false;
                }
            } else if among_var == 5 {
                if !self.slice_from("\u{05D2}\u{05F2}") {
                    return false;
                }
            } else if among_var == 6 {
                if !self.slice_from("\u{05E0}\u{05E2}\u{05DE}") {
                    return false;
                }
            } else if among_var == 7 {
                if !self.slice_from("\u{05E9}\u{05E8}\u{05F2}\u{05D1}") {
                    return false;
                }
            } else if among_var == 8 {
                if !self.slice_from("\u{05DE}\u{05F2}\u{05D3}") {
                    return false;
                }
            } else if among_var == 9 {
                if !self.slice_from("\u{05D1}\u{05F2}\u{05D8}") {
                    return false;
                }
            } else if among_var == 10 {
                if !self.slice_from("\u{05D1}\u{05F2}\u{05E1}") {
                    return false;
                }
            } else if among_var == 11 {
                if !self.slice_from("\u{05F0}\u{05F2}\u{05D6}") {
                    return false;
                }
            } else if among_var == 12 {
                if !self.slice_from("\u{05D8}\u{05E8}\u{05F2}\u{05D1}") {
                    return false;
                }
            } else if among_var == 13 {
                if !self.slice_from("\u{05DC}\u{05F2}\u{05D8}") {
                    return false;
                }
            } else if among_var == 14 {
                if !self.slice_from("\u{05E7}\u{05DC}\u{05F2}\u{05D1}") {
                    return false;
                }
            } else if among_var == 15 {
                if !self.slice_from("\u{05E8}\u{05F2}\u{05D1}") {
                    return false;
                }
            } else if among_var == 16 {
                if !self.slice_from("\u{05E8}\u{05F2}\u{05E1}") {
                    return false;
                }
            } else if among_var == 17 {
                if !self.slice_from("\u{05E9}\u{05F0}\u{05F2}\u{05D2}") {
                    return false;
                }
            } else if among_var == 18 {
                if !self.slice_from("\u{05E9}\u{05DE}\u{05F2}\u{05E1}") {
                    return false;
                }
            } else if among_var == 19 {
                if !self.slice_from("\u{05E9}\u{05E0}\u{05F2}\u{05D3}") {
                    return false;
                }
            } else if among_var == 20 {
                if !self.slice_from("\u{05D1}\u{05D9}\u{05E0}\u{05D3}") {
                    return false;
                }
            } else if among_var == 21 {
                if !self.slice_from("\u{05F0}\u{05D9}\u{05D8}\u{05E9}") {
                    return false;
                }
            } else if among_var == 22 {
                if !self.slice_from("\u{05D6}\u{05D9}\u{05E0}\u{05D2}") {
                    return false;
                }
            } else if among_var == 23 {
                if !self.slice_from("\u{05D8}\u{05E8}\u{05D9}\u{05E0}\u{05E7}") {
                    return false;
                }
            } else if among_var == 24 {
                if !self.slice_from("\u{05E6}\u{05F0}\u{05D9}\u{05E0}\u{05D2}") {
                    return false;
                }
            } else if among_var == 25 {
                if !self.slice_from("\u{05E9}\u{05DC}\u{05D9}\u{05E0}\u{05D2}") {
                    return false;
                }
            } else if among_var == 26 {
                if !self.slice_from("\u{05D1}\u{05F2}\u{05D2}") {
                    return false;
                }
            } else if among_var == 27 {
                if !self.slice_from("\u{05D4}\u{05F2}\u{05D1}") {
                    return false;
                }
            } else if among_var == 28 {
                if !self.slice_from("\u{05E4}\u{05D0}\u{05E8}\u{05DC}\u{05D9}\u{05E8}") {
                    return false;
                }
            } else if among_var == 29 {
                if !self.slice_from("\u{05E9}\u{05D8}\u{05F2}") {
                    return false;
                }
            } else if among_var == 30 {
                if !self.slice_from("\u{05E9}\u{05F0}\u{05E2}\u{05E8}") {
                    return false;
                }
            } else if among_var == 31 {
                if !self.slice_from("\u{05D1}\u{05E8}\u{05E2}\u{05E0}\u{05D2}") {
                    return false;
                }
            } else if among_var == 32 {
                if !self.r_r1() {
                    break 'lab0;
                }
                if !self.slice_from("\u{05D4}") {
                    return false;
                }
            } else if among_var == 33 {
                'lab4: {
                    let v_4 = self.limit - self.cursor;
                    'lab5: {
                        'lab6: {
                            let v_5 = self.limit - self.cursor;
                            'lab7: {
                                if !self.eq_s_b("\u{05D2}") {
                                    break 'lab7;
                                }
                                break 'lab6;
                            }
                            self.cursor = self.limit - v_5;
                            if !self.eq_s_b("\u{05E9}") {
                                break 'lab5;
                            }
                        }
                        let v_6 = self.limit - self.cursor;
                        'lab8: {
                            if !self.r_r1plus3() {
                                self.cursor = self.limit - v_6;
                                break 'lab8;
                            }
                            if !self.slice_from("\u{05D9}\u{05E1}") {
                                return false;
                            }
                        }
                        break 'lab4;
                    }
                    self.cursor = self.limit - v_4;
                    if !self.r_r1() {
                        break 'lab0;
                    }
                    if !self.slice_del() {
                        return false;
                    }
                }
            }
        }
        self.cursor = self.limit - v_1;
        let v_7 = self.limit - self.cursor;
        'lab9: {
            self.ket = self.cursor;
            let among_var = self.find_among_b(&A_5);
            if among_var == 0 {
                break 'lab9;
            }
            self.bra = self.cursor;
            if among_var == 1 {
                if !self.r_r1() {
                    break 'lab9;
                }
                if !self.slice_del() {
                    return false;
                }
            } else {
                if !self.r_r1() {
                    break 'lab9;
                }
                if !self.in_grouping_b(G_CONSONANT) {
                    break 'lab9;
                }
                if !self.slice_del() {
                    return false;
                }
            }
        }
        self.cursor = self.limit - v_7;
        let v_8 = self.limit - self.cursor;
        'lab10: {
            self.ket = self.cursor;
            let among_var = self.find_among_b(&A_6);
            if among_var == 0 {
                break 'lab10;
            }
            self.bra = self.cursor;
            if among_var == 1 {
                if !self.r_r1() {
                    break 'lab10;
                }
                if !self.slice_del() {
                    return false;
                }
            }
        }
        self.cursor = self.limit - v_8;
        let v_9 = self.limit - self.cursor;
        'lab11: {
            'loop1: loop {
                if self.out_of_fuel() {
                    return false;
                }
                let v_10 = self.limit - self.cursor;
                'lab12: {
                    'lab13: {
                        'loop2: loop {
                            if self.out_of_fuel() {
                                return false;
                            }
                            let v_11 = self.limit - self.cursor;
                            'lab14: {
                                self.ket = self.cursor;
                                'lab15: {
                                    let v_12 = self.limit - self.cursor;
                                    'lab16: {
                                        if !self.eq_s_b("GE") {
                                            break 'lab16;
                                        }
                                        break 'lab15;
                                    }
                                    self.cursor = self.limit - v_12;
                                    if !self.eq_s_b("TSU") {
                                        break 'lab14;
                                    }
                                }
                                self.bra = self.cursor;
                                if !self.slice_del() {
                                    return false;
                                }
                                self.cursor = self.limit - v_11;
                                break 'lab13;
                            }
                            self.cursor = self.limit - v_11;
                            if self.cursor <= self.limit_backward {
                                break 'lab12;
                            }
                            self.cursor -= 1;
                        }
                    }
                    continue 'loop1;
                }
                self.cursor = self.limit - v_10;
                break 'loop1;
            }
        }
        self.cursor = self.limit - v_9;
        return true;
    }

    fn stem_program(&mut self) -> bool {
        self.r_prelude();
        let v_2 = self.cursor;
        self.r_mark_regions();
        self.cursor = v_2;
        self.limit_backward = self.cursor;
        self.cursor = self.limit;
        self.r_standard_suffix();
        self.cursor = self.limit_backward;
        return true;
    }
}
