use super::SnowballLanguage;

#[test]
fn placeholder_smoke() {
    for lang in SnowballLanguage::ALL {
        let _ = lang.stem("word");
    }
}
