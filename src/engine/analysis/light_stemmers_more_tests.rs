//! Stems from Lucene's own tests (TestCzechStemmer, TestBulgarianStemmer, TestLatvianStemmer,
//! TestIndonesianStemmer, TestHindiStemmer, TestSoraniStemFilter), and a no-panic property.

use proptest::prelude::*;

fn check(stem: fn(&str) -> String, cases: &[(&str, &str)]) {
    let failures: Vec<String> = cases
        .iter()
        .filter(|(word, expected)| stem(word) != *expected)
        .map(|(word, expected)| format!("{word}: expected {expected}, got {}", stem(word)))
        .collect();
    assert!(failures.is_empty(), "{failures:#?}");
}

#[test]
fn czech() {
    check(
        super::czech,
        &[
            ("pán", "pán"), ("páni", "pán"), ("pánové", "pán"), ("pána", "pán"), ("pánů", "pán"), ("pánovi", "pán"),
            ("pánům", "pán"), ("pány", "pán"), ("páne", "pán"), ("pánech", "pán"), ("pánem", "pán"), ("hrad", "hrad"),
            ("hradu", "hrad"), ("hrade", "hrad"), ("hradem", "hrad"), ("hrady", "hrad"), ("hradech", "hrad"),
            ("hradům", "hrad"), ("hradů", "hrad"), ("muž", "muh"), ("muži", "muh"), ("muže", "muh"), ("mužů", "muh"),
            ("mužům", "muh"), ("mužích", "muh"), ("mužem", "muh"), ("stroj", "stroj"), ("stroje", "stroj"),
            ("strojích", "stroj"), ("předseda", "předsd"), ("předsedové", "předsd"), ("předsedovi", "předsd"),
            ("předsedech", "předsd"), ("předsedou", "předsd"), ("soudce", "soudk"), ("soudci", "soudk"),
            ("soudcích", "soudk"), ("kost", "kost"), ("kostí", "kost"), ("kostmi", "kost"), ("píseň", "písň"),
            ("písně", "písn"), ("písněmi", "písn"), ("růže", "růh"), ("růžemi", "růh"), ("žena", "žn"), ("žen", "žn"),
            ("ženami", "žn"), ("město", "měst"), ("městech", "měst"), ("moře", "moř"), ("mořích", "moř"),
            ("kuřata", "kuř"), ("kuřatům", "kuř"), ("kuřetem", "kuř"), ("stavení", "stavn"), ("staveními", "stavn"),
            ("mladý", "mlad"), ("mladého", "mlad"), ("mladými", "mlad"), ("mladou", "mlad"), ("jarní", "jarn"),
            ("jarnímu", "jarn"), ("karlův", "karl"), ("jazykový", "jazyk"), ("český", "česk"), ("čeští", "česk"),
            ("anglický", "anglick"), ("angličtí", "anglick"), ("kniha", "knih"), ("knize", "knih"), ("mazat", "mah"),
            ("mažu", "mah"), ("kluci", "kluk"), ("klucích", "kluk"), ("hezký", "hezk"), ("hezčí", "hezk"),
            ("hůl", "hol"), ("hole", "hol"), ("deska", "desk"), ("desek", "desk"), ("e", "e"), ("zi", "zi"), ("", ""),
        ],
    );
}

#[test]
fn bulgarian() {
    check(
        super::bulgarian,
        &[
            ("град", "град"), ("града", "град"), ("градът", "град"), ("градове", "град"), ("градовете", "град"),
            ("народите", "народ"), ("народе", "народ"), ("пътя", "път"), ("пътят", "път"), ("пътища", "път"),
            ("пътищата", "път"), ("градец", "градец"), ("градецът", "градец"), ("градовце", "градовц"),
            ("градовцете", "градовц"), ("дядо", "дяд"), ("дядовци", "дяд"), ("дядовците", "дяд"), ("мъже", "мъж"),
            ("мъжете", "мъж"), ("мъжът", "мъжът"), ("краката", "крак"), ("братя", "брат"), ("братята", "брат"),
            ("вестта", "вест"), ("вестите", "вест"), ("дърво", "дърв"), ("дървета", "дърв"), ("дърветата", "дърв"),
            ("море", "мор"), ("моретата", "мор"), ("изключение", "изключени"), ("изключенията", "изключени"),
            ("изключения", "изключн"), ("красивия", "красив"), ("красивият", "красив"), ("красивите", "красив"),
            ("собственици", "собственик"), ("собствениците", "собственик"), ("подлози", "подлог"),
            ("подлозите", "подлог"), ("кожуси", "кожух"), ("кожусите", "кожух"), ("център", "центр"),
            ("центърът", "центр"), ("центровете", "центр"), ("промени", "промян"), ("промените", "промян"),
            ("песен", "песн"), ("песента", "песн"), ("песните", "песн"), ("строеве", "строй"), ("строевете", "строй"),
            ("строя", "стр"), ("строят", "стр"),
        ],
    );
}

#[test]
fn latvian() {
    check(
        super::latvian,
        &[
            ("tēvs", "tēv"), ("tēvi", "tēv"), ("tēviem", "tēv"), ("tēvus", "tēv"), ("tēvā", "tēv"), ("lācis", "lāc"),
            ("lāči", "lāc"), ("lāču", "lāc"), ("lāčiem", "lāc"), ("lācī", "lāc"), ("akmens", "akmen"),
            ("akmeņi", "akmen"), ("akmeņu", "akmen"), ("akmeņiem", "akmen"), ("kurmji", "kurm"),
            ("kurmjiem", "kurm"), ("lietus", "liet"), ("lietū", "liet"), ("lapām", "lap"), ("puikās", "puik"),
            ("egļu", "egl"), ("eglēm", "egl"), ("govju", "gov"), ("govij", "gov"), ("govīs", "gov"),
            ("zilais", "zil"), ("zilie", "zil"), ("zilajam", "zil"), ("zilajiem", "zil"), ("zilajai", "zil"),
            ("zilajām", "zil"), ("zilajos", "zil"), ("zilajās", "zil"), ("krāšņu", "krāsn"), ("zvaigžņu", "zvaigzn"),
            ("kāpšļu", "kāpsl"), ("zižļu", "zizl"), ("viļņu", "viln"), ("leļļu", "lell"), ("piņņu", "pinn"),
            ("rīkste", "rīkst"), ("rīkšu", "rīkst"), ("usa", "usa"), ("60ms", "60ms"),
        ],
    );
}

#[test]
fn indonesian() {
    check(
        super::indonesian,
        &[
            ("bukukah", "buku"), ("adalah", "ada"), ("bukupun", "buku"), ("bukuku", "buku"), ("bukumu", "buku"),
            ("bukunya", "buku"), ("mengukur", "ukur"), ("menyapu", "sapu"), ("menduga", "duga"), ("menuduh", "uduh"),
            ("membaca", "baca"), ("merusak", "rusak"), ("pengukur", "ukur"), ("penyapu", "sapu"), ("penduga", "duga"),
            ("pembaca", "baca"), ("diukur", "ukur"), ("tersapu", "sapu"), ("kekasih", "kasih"), ("berlari", "lari"),
            ("belajar", "ajar"), ("bekerja", "kerja"), ("perjelas", "jelas"), ("pelajar", "ajar"), ("pekerja", "kerja"),
            ("tarikkan", "tarik"), ("ambilkan", "ambil"), ("mengambilkan", "ambil"), ("makanan", "makan"),
            ("janjian", "janji"), ("perjanjian", "janji"), ("tandai", "tanda"), ("dapati", "dapat"),
            ("mendapati", "dapat"), ("pantai", "panta"), ("penyalahgunaan", "salahguna"),
            ("menyalahgunakan", "salahguna"), ("disalahgunakan", "salahguna"),
            ("pertanggungjawaban", "tanggungjawab"), ("mempertanggungjawabkan", "tanggungjawab"),
            ("dipertanggungjawabkan", "tanggungjawab"), ("pelaksanaan", "laksana"), ("pelaksana", "laksana"),
            ("melaksanakan", "laksana"), ("dilaksanakan", "laksana"), ("melibatkan", "libat"), ("terlibat", "libat"),
            ("penculikan", "culik"), ("menculik", "culik"), ("diculik", "culik"), ("penculik", "culik"),
            ("perubahan", "ubah"), ("peledakan", "ledak"), ("penanganan", "tangan"), ("kepolisian", "polisi"),
            ("kenaikan", "naik"), ("bersenjata", "senjata"), ("penyelewengan", "seleweng"), ("kecelakaan", "celaka"),
            ("gigi", "gigi"), ("", ""),
        ],
    );
}

#[test]
fn hindi() {
    check(
        super::hindi,
        &[
            ("लडका", "लडक"), ("लडके", "लडक"), ("लडकों", "लडक"), ("गुरु", "गुर"), ("गुरुओं", "गुर"), ("दोस्त", "दोस्त"),
            ("दोस्तों", "दोस्त"), ("लडकी", "लडक"), ("लडकियों", "लडक"), ("किताब", "किताब"), ("किताबें", "किताब"),
            ("किताबों", "किताब"), ("आध्यापीका", "आध्यापीक"), ("आध्यापीकाएं", "आध्यापीक"), ("आध्यापीकाओं", "आध्यापीक"),
            ("खाना", "खा"), ("खाता", "खा"), ("खाती", "खा"), ("खा", "खा"), ("कठिनाइयां", "कठिन"), ("कठिन", "कठिन"),
        ],
    );
}

#[test]
fn sorani() {
    check(
        super::sorani,
        &[
            ("پیاوێک", "پیاو"), ("دەرگایەک", "دەرگا"), ("کتاویە", "کتاوی"), ("دەرگایە", "دەرگا"), ("پیاوان", "پیاو"),
            ("دەرگایان", "دەرگا"), ("پیاوەکان", "پیاو"), ("دەرگاکان", "دەرگا"), ("پیاوانە", "پیاو"),
            ("دەرگایانە", "دەرگا"), ("هۆتیلی", "هۆتیل"), ("هۆتیلێکی", "هۆتیل"), ("هۆتیلانی", "هۆتیل"),
            ("دوورەوە", "دوور"), ("نیوەشەودا", "نیوەشەو"), ("سۆرانا", "سۆران"), ("پارەمان", "پارە"),
            ("پارەتان", "پارە"), ("پارەیان", "پارە"),
        ],
    );
}

proptest! {
    #[test]
    fn never_panics(s in "\\PC{0,16}") {
        for stem in [super::czech, super::bulgarian, super::latvian, super::indonesian, super::hindi,
            super::sorani] {
            let out = stem(&s);
            prop_assert!(out.chars().count() <= s.chars().count() + 1);
        }
    }

    #[test]
    fn never_panics_on_letters(s in "[a-zčšžůěýáíéņļāēīūk]{0,12}|[а-яъ]{0,12}|[a-z]{0,14}") {
        for stem in [super::czech, super::bulgarian, super::latvian, super::indonesian] {
            let _ = stem(&s);
        }
    }
}
