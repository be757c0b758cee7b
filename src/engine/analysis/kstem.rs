//! Lucene's `KStemmer` (Bob Krovetz's inflectional and light derivational stemmer), the `kstem`
//! token filter and the `stemmer` filter's `light_english`, ported rule for rule.
//!
//! The dictionary is Lucene's: `kstem/words.txt` holds `KStemData1..8` plus `supplementDict` and
//! `properNouns` (Apache-2.0, from Lucene; see the file's header), and the exception words, the
//! direct conflations and the country/nationality pairs of `KStemmer.java` are below.
//!
//! Like Lucene, a term is stemmed only if it is 3 to 49 characters of `a`–`z` (the filter expects
//! lowercased input and leaves anything else alone); a term found in the dictionary stems to its
//! conflation or stays. The working word is Lucene's `OpenStringBuilder`: shortening it keeps the
//! characters past its length in the buffer, and some rules lengthen it again onto them; [`Word`]
//! reproduces that.

use std::sync::OnceLock;

use ahash::AHashMap;

/// The words Lucene never stems (`KStemmer.exceptionWords`).
const EXCEPTION_WORDS: &[&str] = &[
    "aide",
    "bathe",
    "caste",
    "cute",
    "dame",
    "dime",
    "doge",
    "done",
    "dune",
    "envelope",
    "gage",
    "grille",
    "grippe",
    "lobe",
    "mane",
    "mare",
    "nape",
    "node",
    "pane",
    "pate",
    "plane",
    "pope",
    "programme",
    "quite",
    "ripe",
    "rote",
    "rune",
    "sage",
    "severe",
    "shoppe",
    "sine",
    "slime",
    "snipe",
    "steppe",
    "suite",
    "swinge",
    "tare",
    "tine",
    "tope",
    "tripe",
    "twine",
];

/// `KStemmer.directConflations` then `countryNationality`: word → stem.
const CONFLATIONS: &[(&str, &str)] = &[
    ("aging", "age"),
    ("going", "go"),
    ("goes", "go"),
    ("lying", "lie"),
    ("using", "use"),
    ("owing", "owe"),
    ("suing", "sue"),
    ("dying", "die"),
    ("tying", "tie"),
    ("vying", "vie"),
    ("aged", "age"),
    ("used", "use"),
    ("vied", "vie"),
    ("cued", "cue"),
    ("died", "die"),
    ("eyed", "eye"),
    ("hued", "hue"),
    ("iced", "ice"),
    ("lied", "lie"),
    ("owed", "owe"),
    ("sued", "sue"),
    ("toed", "toe"),
    ("tied", "tie"),
    ("does", "do"),
    ("doing", "do"),
    ("aeronautical", "aeronautics"),
    ("mathematical", "mathematics"),
    ("political", "politics"),
    ("metaphysical", "metaphysics"),
    ("cylindrical", "cylinder"),
    ("nazism", "nazi"),
    ("ambiguity", "ambiguous"),
    ("barbarity", "barbarous"),
    ("credulity", "credulous"),
    ("generosity", "generous"),
    ("spontaneity", "spontaneous"),
    ("unanimity", "unanimous"),
    ("voracity", "voracious"),
    ("fled", "flee"),
    ("miscarriage", "miscarry"),
    // countryNationality
    ("afghan", "afghanistan"),
    ("african", "africa"),
    ("albanian", "albania"),
    ("algerian", "algeria"),
    ("american", "america"),
    ("andorran", "andorra"),
    ("angolan", "angola"),
    ("arabian", "arabia"),
    ("argentine", "argentina"),
    ("armenian", "armenia"),
    ("asian", "asia"),
    ("australian", "australia"),
    ("austrian", "austria"),
    ("azerbaijani", "azerbaijan"),
    ("azeri", "azerbaijan"),
    ("bangladeshi", "bangladesh"),
    ("belgian", "belgium"),
    ("bermudan", "bermuda"),
    ("bolivian", "bolivia"),
    ("bosnian", "bosnia"),
    ("botswanan", "botswana"),
    ("brazilian", "brazil"),
    ("british", "britain"),
    ("bulgarian", "bulgaria"),
    ("burmese", "burma"),
    ("californian", "california"),
    ("cambodian", "cambodia"),
    ("canadian", "canada"),
    ("chadian", "chad"),
    ("chilean", "chile"),
    ("chinese", "china"),
    ("colombian", "colombia"),
    ("croat", "croatia"),
    ("croatian", "croatia"),
    ("cuban", "cuba"),
    ("cypriot", "cyprus"),
    ("czechoslovakian", "czechoslovakia"),
    ("danish", "denmark"),
    ("egyptian", "egypt"),
    ("equadorian", "equador"),
    ("eritrean", "eritrea"),
    ("estonian", "estonia"),
    ("ethiopian", "ethiopia"),
    ("european", "europe"),
    ("fijian", "fiji"),
    ("filipino", "philippines"),
    ("finnish", "finland"),
    ("french", "france"),
    ("gambian", "gambia"),
    ("georgian", "georgia"),
    ("german", "germany"),
    ("ghanian", "ghana"),
    ("greek", "greece"),
    ("grenadan", "grenada"),
    ("guamian", "guam"),
    ("guatemalan", "guatemala"),
    ("guinean", "guinea"),
    ("guyanan", "guyana"),
    ("haitian", "haiti"),
    ("hawaiian", "hawaii"),
    ("holland", "dutch"),
    ("honduran", "honduras"),
    ("hungarian", "hungary"),
    ("icelandic", "iceland"),
    ("indonesian", "indonesia"),
    ("iranian", "iran"),
    ("iraqi", "iraq"),
    ("iraqui", "iraq"),
    ("irish", "ireland"),
    ("israeli", "israel"),
    ("italian", "italy"),
    ("jamaican", "jamaica"),
    ("japanese", "japan"),
    ("jordanian", "jordan"),
    ("kampuchean", "cambodia"),
    ("kenyan", "kenya"),
    ("korean", "korea"),
    ("kuwaiti", "kuwait"),
    ("lankan", "lanka"),
    ("laotian", "laos"),
    ("latvian", "latvia"),
    ("lebanese", "lebanon"),
    ("liberian", "liberia"),
    ("libyan", "libya"),
    ("lithuanian", "lithuania"),
    ("macedonian", "macedonia"),
    ("madagascan", "madagascar"),
    ("malaysian", "malaysia"),
    ("maltese", "malta"),
    ("mauritanian", "mauritania"),
    ("mexican", "mexico"),
    ("micronesian", "micronesia"),
    ("moldovan", "moldova"),
    ("monacan", "monaco"),
    ("mongolian", "mongolia"),
    ("montenegran", "montenegro"),
    ("moroccan", "morocco"),
    ("myanmar", "burma"),
    ("namibian", "namibia"),
    ("nepalese", "nepal"),
    ("nicaraguan", "nicaragua"),
    ("nigerian", "nigeria"),
    ("norwegian", "norway"),
    ("omani", "oman"),
    ("pakistani", "pakistan"),
    ("panamanian", "panama"),
    ("papuan", "papua"),
    ("paraguayan", "paraguay"),
    ("peruvian", "peru"),
    ("portuguese", "portugal"),
    ("romanian", "romania"),
    ("rumania", "romania"),
    ("rumanian", "romania"),
    ("russian", "russia"),
    ("rwandan", "rwanda"),
    ("samoan", "samoa"),
    ("scottish", "scotland"),
    ("serb", "serbia"),
    ("serbian", "serbia"),
    ("siam", "thailand"),
    ("siamese", "thailand"),
    ("slovakia", "slovak"),
    ("slovakian", "slovak"),
    ("slovenian", "slovenia"),
    ("somali", "somalia"),
    ("somalian", "somalia"),
    ("spanish", "spain"),
    ("swedish", "sweden"),
    ("swiss", "switzerland"),
    ("syrian", "syria"),
    ("taiwanese", "taiwan"),
    ("tanzanian", "tanzania"),
    ("texan", "texas"),
    ("thai", "thailand"),
    ("tunisian", "tunisia"),
    ("turkish", "turkey"),
    ("ugandan", "uganda"),
    ("ukrainian", "ukraine"),
    ("uruguayan", "uruguay"),
    ("uzbek", "uzbekistan"),
    ("venezuelan", "venezuela"),
    ("vietnamese", "viet"),
    ("virginian", "virginia"),
    ("yemeni", "yemen"),
    ("yugoslav", "yugoslavia"),
    ("yugoslavian", "yugoslavia"),
    ("zambian", "zambia"),
    ("zealander", "zealand"),
    ("zimbabwean", "zimbabwe"),
];

const WORDS: &str = include_str!("kstem/words.txt");

/// Lucene's `KStemmer.MaxWordLen`.
const MAX_WORD_LEN: usize = 50;

/// A dictionary entry (`KStemmer.DictEntry`).
#[derive(Clone, Copy, Debug)]
struct Entry {
    exception: bool,
    /// The conflation; `None` when the word is its own stem.
    root: Option<&'static str>,
}

fn dictionary() -> &'static AHashMap<&'static [u8], Entry> {
    static DICT: OnceLock<AHashMap<&'static [u8], Entry>> = OnceLock::new();
    DICT.get_or_init(|| {
        let mut d = AHashMap::with_capacity(28_500);
        for w in EXCEPTION_WORDS {
            d.entry(w.as_bytes()).or_insert(Entry { exception: true, root: Some(*w) });
        }
        for (w, root) in CONFLATIONS {
            d.entry(w.as_bytes()).or_insert(Entry { exception: false, root: Some(*root) });
        }
        for line in WORDS.lines() {
            let w = line.trim();
            if !w.is_empty() && !w.starts_with('#') {
                d.entry(w.as_bytes()).or_insert(Entry { exception: false, root: None });
            }
        }
        d
    })
}

/// The KStem stem of `term`.
pub fn kstem(term: &str) -> String {
    match KStemmer::default().stem(term) {
        Some(stem) => stem,
        None => term.to_owned(),
    }
}

/// Lucene's `OpenStringBuilder` over ASCII: `set_len` keeps the buffer, reads past the length
/// see what was written there before (never past the buffer: those read as 0).
#[derive(Default)]
struct Word {
    buf: Vec<u8>,
    len: usize,
}

impl Word {
    fn at(&self, i: isize) -> u8 {
        usize::try_from(i).ok().and_then(|i| self.buf.get(i)).copied().unwrap_or(0)
    }
    fn set_at(&mut self, i: isize, c: u8) {
        if let Some(slot) = usize::try_from(i).ok().and_then(|i| self.buf.get_mut(i)) {
            *slot = c;
        }
    }
    fn set_len(&mut self, n: isize) {
        let n = usize::try_from(n).unwrap_or(0);
        if n > self.buf.len() {
            self.buf.resize(n, 0);
        }
        self.len = n;
    }
    fn push(&mut self, c: u8) {
        if self.len < self.buf.len() {
            self.buf[self.len] = c;
        } else {
            self.buf.push(c);
        }
        self.len += 1;
    }
    fn append(&mut self, s: &str) {
        for c in s.bytes() {
            self.push(c);
        }
    }
    fn len(&self) -> isize {
        self.len as isize
    }
    fn as_bytes(&self) -> &[u8] {
        &self.buf[..self.len.min(self.buf.len())]
    }
}

/// The stemmer's state (`KStemmer`'s fields); one per term.
#[derive(Default)]
struct KStemmer {
    word: Word,
    /// Index of the last letter of the stem (before the suffix `ends_in*` matched).
    j: isize,
    /// Index of the last letter of the word.
    k: isize,
    matched: Option<Entry>,
}

impl KStemmer {
    /// `KStemmer.stem`: `None` when the term is left as it is.
    fn stem(&mut self, term: &str) -> Option<String> {
        let bytes = term.as_bytes();
        let len = bytes.len();
        if len <= 2 || len >= MAX_WORD_LEN || !term.is_ascii() {
            // Lucene counts UTF-16 units; a non-ASCII term is never in the dictionary nor stemmed.
            return None;
        }
        let dict = dictionary();
        if let Some(entry) = dict.get(bytes) {
            return entry.root.map(str::to_owned);
        }
        if !bytes.iter().all(u8::is_ascii_lowercase) {
            return None;
        }
        self.k = len as isize - 1;
        self.word = Word { buf: Vec::with_capacity(len + 10), len: 0 };
        for &c in bytes {
            self.word.push(c);
        }
        self.matched = None;
        // Lucene's `while (true) { ...; break; }`: each step runs only if nothing matched yet.
        let steps: [fn(&mut Self); 9] = [
            Self::plural,
            Self::past_tense,
            Self::aspect,
            Self::ity_endings,
            Self::ness_endings,
            Self::ion_endings,
            Self::er_and_or_endings,
            Self::ly_endings,
            Self::al_endings,
        ];
        let later: [fn(&mut Self); 8] = [
            Self::ive_endings,
            Self::ize_endings,
            Self::ment_endings,
            Self::ble_endings,
            Self::ism_endings,
            Self::ic_endings,
            Self::ncy_endings,
            Self::nce_endings,
        ];
        let mut done = false;
        for step in steps {
            step(self);
            if self.matched.is_some() {
                done = true;
                break;
            }
        }
        if !done {
            let _ = self.word_in_dict();
            for step in later {
                step(self);
                if self.matched.is_some() {
                    break;
                }
            }
        }
        if let Some(Entry { root: Some(root), .. }) = self.matched {
            return Some(root.to_owned());
        }
        Some(String::from_utf8_lossy(self.word.as_bytes()).into_owned())
    }

    fn at(&self, i: isize) -> u8 {
        self.word.at(i)
    }

    fn is_cons(&self, index: isize) -> bool {
        // Lucene recurses on `y` after `y`...; iterate instead (same answer).
        let mut i = index;
        let mut negate = false;
        loop {
            let c = self.at(i);
            let cons = if matches!(c, b'a' | b'e' | b'i' | b'o' | b'u') {
                false
            } else if c != b'y' || i <= 0 {
                true
            } else {
                negate = !negate;
                i -= 1;
                continue;
            };
            return cons != negate;
        }
    }

    fn ends_in(&mut self, s: &str) -> bool {
        let s = s.as_bytes();
        let n = s.len() as isize;
        if n > self.k {
            return false;
        }
        let r = self.word.len() - n;
        self.j = self.k;
        for (i, &c) in s.iter().enumerate() {
            if c != self.at(r + i as isize) {
                return false;
            }
        }
        self.j = r - 1;
        true
    }

    /// Lucene's `endsIn(char...)` of 2 to 4 letters: checks `word[k-n+1..=k]`.
    fn ends_in_k(&mut self, s: &str) -> bool {
        let s = s.as_bytes();
        let n = s.len() as isize;
        if n > self.k {
            return false;
        }
        for (i, &c) in s.iter().enumerate() {
            if self.at(self.k - n + 1 + i as isize) != c {
                return false;
            }
        }
        self.j = self.k - n;
        true
    }

    fn lookup(&mut self) -> bool {
        self.matched = dictionary().get(self.word.as_bytes()).copied();
        self.matched.is_some()
    }

    fn word_in_dict(&mut self) -> Option<Entry> {
        if self.matched.is_some() {
            return self.matched;
        }
        let e = dictionary().get(self.word.as_bytes()).copied();
        if let Some(entry) = e {
            if !entry.exception {
                self.matched = e;
            }
        }
        e
    }

    fn set_suffix(&mut self, s: &str) {
        self.word.set_len(self.j + 1);
        self.word.append(s);
        self.k = self.j + s.len() as isize;
    }

    fn double_c(&self, i: isize) -> bool {
        i >= 1 && self.at(i) == self.at(i - 1) && self.is_cons(i)
    }

    fn vowel_in_stem(&self) -> bool {
        (0..=self.j).any(|i| !self.is_cons(i))
    }

    fn plural(&mut self) {
        if self.at(self.k) != b's' {
            return;
        }
        if self.ends_in_k("ies") {
            self.word.set_len(self.j + 3);
            self.k -= 1;
            if self.lookup() {
                return;
            }
            self.k += 1;
            self.word.push(b's');
            self.set_suffix("y");
            self.lookup();
        } else if self.ends_in_k("es") {
            self.word.set_len(self.j + 2);
            self.k -= 1;
            let j = self.j;
            let try_e = j > 0 && !(self.at(j) == b's' && self.at(j - 1) == b's');
            if try_e && self.lookup() {
                return;
            }
            self.word.set_len(j + 1);
            self.k -= 1;
            if self.lookup() {
                return;
            }
            self.word.push(b'e');
            self.k += 1;
            if !try_e {
                self.lookup();
            }
        } else if self.word.len() > 3 && self.at(self.k - 1) != b's' && !self.ends_in_k("ous") {
            self.word.set_len(self.k);
            self.k -= 1;
            self.lookup();
        }
    }

    fn past_tense(&mut self) {
        if self.word.len() <= 4 {
            return;
        }
        if self.ends_in_k("ied") {
            self.word.set_len(self.j + 3);
            self.k -= 1;
            if self.lookup() {
                return;
            }
            self.k += 1;
            self.word.push(b'd');
            self.set_suffix("y");
            self.lookup();
            return;
        }
        if self.ends_in_k("ed") && self.vowel_in_stem() {
            let j = self.j;
            self.word.set_len(j + 2);
            self.k = j + 1;
            if let Some(entry) = self.word_in_dict() {
                if !entry.exception {
                    return;
                }
            }
            self.word.set_len(j + 1);
            self.k = j;
            if self.lookup() {
                return;
            }
            if self.double_c(self.k) {
                self.word.set_len(self.k);
                self.k -= 1;
                if self.lookup() {
                    return;
                }
                let c = self.at(self.k);
                self.word.push(c);
                self.k += 1;
                self.lookup();
                return;
            }
            if self.at(0) == b'u' && self.at(1) == b'n' {
                self.word.push(b'e');
                self.word.push(b'd');
                self.k += 2;
                return;
            }
            self.word.set_len(j + 1);
            self.word.push(b'e');
            self.k = j + 1;
        }
    }

    fn aspect(&mut self) {
        if self.word.len() <= 5 {
            return;
        }
        if self.ends_in_k("ing") && self.vowel_in_stem() {
            let j = self.j;
            self.word.set_at(j + 1, b'e');
            self.word.set_len(j + 2);
            self.k = j + 1;
            if let Some(entry) = self.word_in_dict() {
                if !entry.exception {
                    return;
                }
            }
            self.word.set_len(self.k);
            self.k -= 1;
            if self.lookup() {
                return;
            }
            if self.double_c(self.k) {
                self.k -= 1;
                self.word.set_len(self.k + 1);
                if self.lookup() {
                    return;
                }
                let c = self.at(self.k);
                self.word.push(c);
                self.k += 1;
                self.lookup();
                return;
            }
            if j > 0 && self.is_cons(j) && self.is_cons(j - 1) {
                self.k = j;
                self.word.set_len(self.k + 1);
                return;
            }
            self.word.set_len(j + 1);
            self.word.push(b'e');
            self.k = j + 1;
        }
    }

    fn ity_endings(&mut self) {
        let old_k = self.k;
        if !self.ends_in_k("ity") {
            return;
        }
        let j = self.j;
        self.word.set_len(j + 1);
        self.k = j;
        if self.lookup() {
            return;
        }
        self.word.push(b'e');
        self.k = j + 1;
        if self.lookup() {
            return;
        }
        self.word.set_at(j + 1, b'i');
        self.word.append("ty");
        self.k = old_k;
        if j > 0 && self.at(j - 1) == b'i' && self.at(j) == b'l' {
            self.word.set_len(j - 1);
            self.word.append("le");
            self.k = j;
            self.lookup();
            return;
        }
        if j > 0 && self.at(j - 1) == b'i' && self.at(j) == b'v' {
            self.word.set_len(j + 1);
            self.word.push(b'e');
            self.k = j + 1;
            self.lookup();
            return;
        }
        if j > 0 && self.at(j - 1) == b'a' && self.at(j) == b'l' {
            self.word.set_len(j + 1);
            self.k = j;
            self.lookup();
            return;
        }
        if self.lookup() {
            return;
        }
        self.word.set_len(j + 1);
        self.k = j;
    }

    fn nce_endings(&mut self) {
        let old_k = self.k;
        if self.ends_in_k("nce") {
            let j = self.j;
            let c = self.at(j);
            if !(c == b'e' || c == b'a') {
                return;
            }
            self.word.set_len(j);
            self.word.push(b'e');
            self.k = j;
            if self.lookup() {
                return;
            }
            self.word.set_len(j);
            self.k = j - 1;
            if self.lookup() {
                return;
            }
            self.word.push(c);
            self.word.append("nce");
            self.k = old_k;
        }
    }

    fn ness_endings(&mut self) {
        if self.ends_in_k("ness") {
            let j = self.j;
            self.word.set_len(j + 1);
            self.k = j;
            if self.at(j) == b'i' {
                self.word.set_at(j, b'y');
            }
            self.lookup();
        }
    }

    fn ism_endings(&mut self) {
        if self.ends_in_k("ism") {
            self.word.set_len(self.j + 1);
            self.k = self.j;
            self.lookup();
        }
    }

    fn ment_endings(&mut self) {
        let old_k = self.k;
        if self.ends_in_k("ment") {
            self.word.set_len(self.j + 1);
            self.k = self.j;
            if self.lookup() {
                return;
            }
            self.word.append("ment");
            self.k = old_k;
        }
    }

    fn ize_endings(&mut self) {
        let old_k = self.k;
        if !self.ends_in_k("ize") {
            return;
        }
        let j = self.j;
        self.word.set_len(j + 1);
        self.k = j;
        if self.lookup() {
            return;
        }
        self.word.push(b'i');
        if self.double_c(j) {
            self.word.set_len(j);
            self.k = j - 1;
            if self.lookup() {
                return;
            }
            let c = self.at(j - 1);
            self.word.push(c);
        }
        self.word.set_len(j + 1);
        self.word.push(b'e');
        self.k = j + 1;
        if self.lookup() {
            return;
        }
        self.word.set_len(j + 1);
        self.word.append("ize");
        self.k = old_k;
    }

    fn ncy_endings(&mut self) {
        if self.ends_in_k("ncy") {
            let j = self.j;
            if !(self.at(j) == b'e' || self.at(j) == b'a') {
                return;
            }
            self.word.set_at(j + 2, b't');
            self.word.set_len(j + 3);
            self.k = j + 2;
            if self.lookup() {
                return;
            }
            self.word.set_at(j + 2, b'c');
            self.word.push(b'e');
            self.k = j + 3;
            self.lookup();
        }
    }

    fn ble_endings(&mut self) {
        let old_k = self.k;
        if !self.ends_in_k("ble") {
            return;
        }
        let j = self.j;
        let c = self.at(j);
        if !(c == b'a' || c == b'i') {
            return;
        }
        self.word.set_len(j);
        self.k = j - 1;
        if self.lookup() {
            return;
        }
        if self.double_c(self.k) {
            self.word.set_len(self.k);
            self.k -= 1;
            if self.lookup() {
                return;
            }
            self.k += 1;
            let d = self.at(self.k - 1);
            self.word.push(d);
        }
        self.word.set_len(j);
        self.word.push(b'e');
        self.k = j;
        if self.lookup() {
            return;
        }
        self.word.set_len(j);
        self.word.append("ate");
        self.k = j + 2;
        if self.lookup() {
            return;
        }
        self.word.set_len(j);
        self.word.push(c);
        self.word.append("ble");
        self.k = old_k;
    }

    fn ic_endings(&mut self) {
        if !self.ends_in_k("ic") {
            return;
        }
        let j = self.j;
        self.word.set_len(j + 3);
        self.word.append("al");
        self.k = j + 4;
        if self.lookup() {
            return;
        }
        self.word.set_at(j + 1, b'y');
        self.word.set_len(j + 2);
        self.k = j + 1;
        if self.lookup() {
            return;
        }
        self.word.set_at(j + 1, b'e');
        if self.lookup() {
            return;
        }
        self.word.set_len(j + 1);
        self.k = j;
        if self.lookup() {
            return;
        }
        self.word.append("ic");
        self.k = j + 2;
    }

    fn ion_endings(&mut self) {
        let old_k = self.k;
        if !self.ends_in_k("ion") {
            return;
        }
        if self.ends_in("ization") {
            let j = self.j;
            self.word.set_len(j + 3);
            self.word.push(b'e');
            self.k = j + 3;
            self.lookup();
            return;
        }
        if self.ends_in("ition") {
            let j = self.j;
            self.word.set_len(j + 1);
            self.word.push(b'e');
            self.k = j + 1;
            if self.lookup() {
                return;
            }
            self.word.set_len(j + 1);
            self.word.append("ition");
            self.k = old_k;
        } else if self.ends_in("ation") {
            let j = self.j;
            self.word.set_len(j + 3);
            self.word.push(b'e');
            self.k = j + 3;
            if self.lookup() {
                return;
            }
            self.word.set_len(j + 1);
            self.word.push(b'e');
            self.k = j + 1;
            if self.lookup() {
                return;
            }
            self.word.set_len(j + 1);
            self.k = j;
            if self.lookup() {
                return;
            }
            self.word.set_len(j + 1);
            self.word.append("ation");
            self.k = old_k;
        }
        if self.ends_in("ication") {
            let j = self.j;
            self.word.set_len(j + 1);
            self.word.push(b'y');
            self.k = j + 1;
            if self.lookup() {
                return;
            }
            self.word.set_len(j + 1);
            self.word.append("ication");
            self.k = old_k;
        }
        self.j = self.k - 3;
        let j = self.j;
        self.word.set_len(j + 1);
        self.word.push(b'e');
        self.k = j + 1;
        if self.lookup() {
            return;
        }
        self.word.set_len(j + 1);
        self.k = j;
        if self.lookup() {
            return;
        }
        self.word.set_len(j + 1);
        self.word.append("ion");
        self.k = old_k;
    }

    fn er_and_or_endings(&mut self) {
        let old_k = self.k;
        if self.at(self.k) != b'r' {
            return;
        }
        if self.ends_in_k("izer") {
            self.word.set_len(self.j + 4);
            self.k = self.j + 3;
            self.lookup();
            return;
        }
        if self.ends_in_k("er") || self.ends_in_k("or") {
            let j = self.j;
            let word_char = self.at(j + 1);
            if self.double_c(j) {
                self.word.set_len(j);
                self.k = j - 1;
                if self.lookup() {
                    return;
                }
                let c = self.at(j - 1);
                self.word.push(c);
            }
            if self.at(j) == b'i' {
                self.word.set_at(j, b'y');
                self.word.set_len(j + 1);
                self.k = j;
                if self.lookup() {
                    return;
                }
                self.word.set_at(j, b'i');
                self.word.push(b'e');
            }
            if self.at(j) == b'e' {
                self.word.set_len(j);
                self.k = j - 1;
                if self.lookup() {
                    return;
                }
                self.word.push(b'e');
            }
            self.word.set_len(j + 2);
            self.k = j + 1;
            if self.lookup() {
                return;
            }
            self.word.set_len(j + 1);
            self.k = j;
            if self.lookup() {
                return;
            }
            self.word.push(b'e');
            self.k = j + 1;
            if self.lookup() {
                return;
            }
            self.word.set_len(j + 1);
            self.word.push(word_char);
            self.word.push(b'r');
            self.k = old_k;
        }
    }

    fn ly_endings(&mut self) {
        let old_k = self.k;
        if !self.ends_in_k("ly") {
            return;
        }
        let j = self.j;
        self.word.set_at(j + 2, b'e');
        if self.lookup() {
            return;
        }
        self.word.set_at(j + 2, b'y');
        self.word.set_len(j + 1);
        self.k = j;
        if self.lookup() {
            return;
        }
        if j > 0 && self.at(j - 1) == b'a' && self.at(j) == b'l' {
            return;
        }
        self.word.append("ly");
        self.k = old_k;
        if j > 0 && self.at(j - 1) == b'a' && self.at(j) == b'b' {
            self.word.set_at(j + 2, b'e');
            self.k = j + 2;
            return;
        }
        if self.at(j) == b'i' {
            self.word.set_len(j);
            self.word.push(b'y');
            self.k = j;
            if self.lookup() {
                return;
            }
            self.word.set_len(j);
            self.word.append("ily");
            self.k = old_k;
        }
        self.word.set_len(j + 1);
        self.k = j;
    }

    fn al_endings(&mut self) {
        let old_k = self.k;
        if self.word.len() < 4 {
            return;
        }
        if !self.ends_in_k("al") {
            return;
        }
        let j = self.j;
        self.word.set_len(j + 1);
        self.k = j;
        if self.lookup() {
            return;
        }
        if self.double_c(j) {
            self.word.set_len(j);
            self.k = j - 1;
            if self.lookup() {
                return;
            }
            let c = self.at(j - 1);
            self.word.push(c);
        }
        self.word.set_len(j + 1);
        self.word.push(b'e');
        self.k = j + 1;
        if self.lookup() {
            return;
        }
        self.word.set_len(j + 1);
        self.word.append("um");
        self.k = j + 2;
        if self.lookup() {
            return;
        }
        self.word.set_len(j + 1);
        self.word.append("al");
        self.k = old_k;
        if j > 0 && self.at(j - 1) == b'i' && self.at(j) == b'c' {
            self.word.set_len(j - 1);
            self.k = j - 2;
            if self.lookup() {
                return;
            }
            self.word.set_len(j - 1);
            self.word.push(b'y');
            self.k = j - 1;
            if self.lookup() {
                return;
            }
            self.word.set_len(j - 1);
            self.word.append("ic");
            self.k = j;
            self.lookup();
            return;
        }
        if self.at(j) == b'i' {
            self.word.set_len(j);
            self.k = j - 1;
            if self.lookup() {
                return;
            }
            self.word.append("ial");
            self.k = old_k;
            self.lookup();
        }
    }

    fn ive_endings(&mut self) {
        let old_k = self.k;
        if !self.ends_in_k("ive") {
            return;
        }
        let j = self.j;
        self.word.set_len(j + 1);
        self.k = j;
        if self.lookup() {
            return;
        }
        self.word.push(b'e');
        self.k = j + 1;
        if self.lookup() {
            return;
        }
        self.word.set_len(j + 1);
        self.word.append("ive");
        if j > 0 && self.at(j - 1) == b'a' && self.at(j) == b't' {
            self.word.set_at(j - 1, b'e');
            self.word.set_len(j);
            self.k = j - 1;
            if self.lookup() {
                return;
            }
            self.word.set_len(j - 1);
            if self.lookup() {
                return;
            }
            self.word.append("ative");
            self.k = old_k;
        }
        self.word.set_at(j + 2, b'o');
        self.word.set_at(j + 3, b'n');
        if self.lookup() {
            return;
        }
        self.word.set_at(j + 2, b'v');
        self.word.set_at(j + 3, b'e');
        self.k = old_k;
    }
}

#[cfg(test)]
#[path = "kstem_tests.rs"]
mod tests;
