//! Lucene's TestBrazilianAnalyzer cases (after its lowercase filter), and no panics.

use proptest::prelude::*;

use super::*;

#[test]
fn lucenes_examples() {
    let cases = [
        ("boa", "boa"),
        ("boainain", "boainain"),
        ("boas", "boas"),
        ("bôas", "boas"),
        ("boassu", "boassu"),
        ("boataria", "boat"),
        ("boate", "boat"),
        ("boates", "boat"),
        ("boatos", "boat"),
        ("bob", "bob"),
        ("boba", "bob"),
        ("bobagem", "bobag"),
        ("bobagens", "bobagens"),
        ("bobalhões", "bobalho"),
        ("bobear", "bob"),
        ("bobeira", "bobeir"),
        ("bobinho", "bobinh"),
        ("bobinhos", "bobinh"),
        ("bobo", "bob"),
        ("bobs", "bobs"),
        ("boca", "boc"),
        ("bocadas", "boc"),
        ("bocadinho", "bocadinh"),
        ("bocado", "boc"),
        ("bocaiúva", "bocaiuv"),
        ("boçal", "bocal"),
        ("bocarra", "bocarr"),
        ("bocas", "boc"),
        ("bode", "bod"),
        ("bodoque", "bodoqu"),
        ("body", "body"),
        ("boeing", "boeing"),
        ("boem", "boem"),
        ("boemia", "boem"),
        ("boêmio", "boemi"),
        ("bogotá", "bogot"),
        ("boi", "boi"),
        ("bóia", "boi"),
        ("boiando", "boi"),
        ("quiabo", "quiab"),
        ("quicaram", "quic"),
        ("quickly", "quickly"),
        ("quieto", "quiet"),
        ("quietos", "quiet"),
        ("quilate", "quilat"),
        ("quilates", "quilat"),
        ("quilinhos", "quilinh"),
        ("quilo", "quil"),
        ("quilombo", "quilomb"),
        ("quilométricas", "quilometr"),
        ("quilométricos", "quilometr"),
        ("quilômetro", "quilometr"),
        ("quilômetros", "quilometr"),
        ("quilos", "quil"),
        ("quimica", "quimic"),
        ("quimicas", "quimic"),
        ("quimico", "quimic"),
        ("quimicos", "quimic"),
        ("quimioterapia", "quimioterap"),
        ("quimioterápicos", "quimioterap"),
        ("quimono", "quimon"),
        ("quincas", "quinc"),
        ("quinhão", "quinha"),
        ("quinhentos", "quinhent"),
        ("quinn", "quinn"),
        ("quino", "quin"),
        ("quinta", "quint"),
        ("quintal", "quintal"),
        ("quintana", "quintan"),
        ("quintanilha", "quintanilh"),
        ("quintão", "quinta"),
        ("quintessência", "quintessente"),
        ("quintino", "quintin"),
        ("quinto", "quint"),
        ("quintos", "quint"),
        ("quintuplicou", "quintuplic"),
        ("quinze", "quinz"),
        ("quinzena", "quinzen"),
        ("quiosque", "quiosqu"),
        ("brasil", "brasil"),
        ("brasília", "brasil"),
        ("quimio5terápicos", "quimio5terapicos"),
        ("áá", "áá"),
        ("ááá", "aaa"),
        ("", ""),
    ];
    let failures: Vec<String> = cases
        .iter()
        .filter(|(w, s)| brazilian(w) != *s)
        .map(|(w, s)| format!("{w}: expected {s}, got {}", brazilian(w)))
        .collect();
    assert!(failures.is_empty(), "{failures:#?}");
}

proptest! {
    #[test]
    fn never_panics(s in "\\PC{0,40}|[a-zãõáéíóúâêôç]{0,20}") {
        let _ = brazilian(&s);
    }
}
