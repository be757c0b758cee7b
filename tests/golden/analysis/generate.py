# Writes the golden tables of tests/golden/analysis: the expected tokens are OpenSearch's (its docs,
# Lucene's tests, the conformance stories), this script only computes UTF-16 offsets of literal spans.
import json
def u16(s): return len(s.encode('utf-16-le'))//2
def toks(text, terms, typ="word", positions=None, spans=None):
    """terms found in order in text (span text may differ from term when spans given)."""
    out=[]; pos=0
    for i,t in enumerate(terms):
        src = spans[i] if spans else t
        j = text.index(src, pos)
        p = positions[i] if positions else i
        ty = typ[i] if isinstance(typ, list) else typ
        out.append([t, u16(text[:j]), u16(text[:j+len(src)]), ty, p])
        pos = j+len(src)
    return out
Q="The 2 QUICK Brown-Foxes jumped over the lazy dog's bone."
A="<ALPHANUM>"
analyzers=[
 {"name":"standard (OpenSearch docs)","request":{"analyzer":"standard","text":Q},
  "tokens":toks(Q,["the","2","quick","brown","foxes","jumped","over","the","lazy","dog's","bone"],[A,"<NUM>"]+[A]*9,
                spans=["The","2","QUICK","Brown","Foxes","jumped","over","the","lazy","dog's","bone"])},
 {"name":"simple","request":{"analyzer":"simple","text":Q},
  "tokens":toks(Q,["the","quick","brown","foxes","jumped","over","the","lazy","dog","s","bone"],spans=["The","QUICK","Brown","Foxes","jumped","over","the","lazy","dog","s","bone"])},
 {"name":"whitespace","request":{"analyzer":"whitespace","text":Q},
  "tokens":toks(Q,["The","2","QUICK","Brown-Foxes","jumped","over","the","lazy","dog's","bone."])},
 {"name":"stop","request":{"analyzer":"stop","text":Q},
  "tokens":toks(Q,["quick","brown","foxes","jumped","over","lazy","dog","s","bone"],positions=[1,2,3,4,5,7,8,9,10],spans=["QUICK","Brown","Foxes","jumped","over","lazy","dog","s","bone"])},
 {"name":"keyword","request":{"analyzer":"keyword","text":Q},"tokens":[[Q,0,u16(Q),"word",0]]},
 {"name":"english (Porter)","request":{"analyzer":"english","text":Q},
  "tokens":toks(Q,["2","quick","brown","fox","jump","over","lazi","dog","bone"],["<NUM>"]+[A]*8,positions=[1,2,3,4,5,6,8,9,10],
                spans=["2","QUICK","Brown","Foxes","jumped","over","lazy","dog's","bone"])},
 {"name":"pattern (default \\W+, lowercase)","request":{"analyzer":"pattern","text":Q},
  "tokens":toks(Q,["the","2","quick","brown","foxes","jumped","over","the","lazy","dog","s","bone"],spans=["The","2","QUICK","Brown","Foxes","jumped","over","the","lazy","dog","s","bone"])},
 {"name":"fingerprint (OpenSearch docs)","request":{"analyzer":"fingerprint","text":"Yes yes, Gödel said this sentence is consistent and."},
  "tokens":[["and consistent godel is said sentence this yes",0,u16("Yes yes, Gödel said this sentence is consistent and"),"fingerprint",0]]},
 {"name":"standard with stopwords from index settings","settings":{"index":{"analysis":{"analyzer":{"std_stop":{"type":"standard","stopwords":"_english_"}}}}},
  "request":{"analyzer":"std_stop","text":"The quick fox"},"tokens":toks("The quick fox",["quick","fox"],A,positions=[1,2])},
 {"name":"custom analyzer from settings","settings":{"index":{"analysis":{"analyzer":{"my":{"type":"custom","tokenizer":"standard","char_filter":["html_strip"],"filter":["lowercase","asciifolding"]}}}}},
  "request":{"analyzer":"my","text":"Is this <b>déjà vu</b>?"},"tokens":[["is",0,2,A,0],["this",3,7,A,1],["deja",11,15,A,2],["vu",16,22,A,3]]},
]
T2="The 2 QUICK Brown-Foxes jumped over the lazy dog's bone."
tokenizers=[
 {"name":"letter","request":{"tokenizer":"letter","text":T2},"tokens":toks(T2,["The","QUICK","Brown","Foxes","jumped","over","the","lazy","dog","s","bone"])},
 {"name":"lowercase","request":{"tokenizer":"lowercase","text":T2},"tokens":toks(T2,["the","quick","brown","foxes","jumped","over","the","lazy","dog","s","bone"],spans=["The","QUICK","Brown","Foxes","jumped","over","the","lazy","dog","s","bone"])},
 {"name":"whitespace","request":{"tokenizer":"whitespace","text":"a  b\tc\nd"},"tokens":[["a",0,1,"word",0],["b",3,4,"word",1],["c",5,6,"word",2],["d",7,8,"word",3]]},
 {"name":"keyword","request":{"tokenizer":"keyword","text":"New York"},"tokens":[["New York",0,8,"word",0]]},
 {"name":"standard max_token_length 5","request":{"tokenizer":{"type":"standard","max_token_length":5},"text":"jumped"},"tokens":[["jumpe",0,5,A,0],["d",5,6,A,1]]},
 {"name":"ngram defaults (OpenSearch docs)","request":{"tokenizer":"ngram","text":"Quick Fox"},
  "tokens":[[g,s,s+len(g),"word",i] for i,(g,s) in enumerate([("Q",0),("Qu",0),("u",1),("ui",1),("i",2),("ic",2),("c",3),("ck",3),("k",4),("k ",4),(" ",5),(" F",5),("F",6),("Fo",6),("o",7),("ox",7),("x",8)])]},
 {"name":"ngram trigrams of letters and digits","settings":{"index":{"max_ngram_diff":2}},"request":{"tokenizer":{"type":"ngram","min_gram":3,"max_gram":3,"token_chars":["letter","digit"]},"text":"2 Quick Foxes."},
  "tokens":[[g,s,s+3,"word",i] for i,(g,s) in enumerate([("Qui",2),("uic",3),("ick",4),("Fox",8),("oxe",9),("xes",10)])]},
 {"name":"edge_ngram defaults","request":{"tokenizer":"edge_ngram","text":"Quick Fox"},"tokens":[["Q",0,1,"word",0],["Qu",0,2,"word",1]]},
 {"name":"edge_ngram 2..10 letters (OpenSearch docs)","request":{"tokenizer":{"type":"edge_ngram","min_gram":2,"max_gram":10,"token_chars":["letter","digit"]},"text":"2 Quick Foxes."},
  "tokens":[[g,s,s+len(g),"word",i] for i,(g,s) in enumerate([("Qu",2),("Qui",2),("Quic",2),("Quick",2),("Fo",8),("Fox",8),("Foxe",8),("Foxes",8)])]},
 {"name":"path_hierarchy","request":{"tokenizer":"path_hierarchy","text":"/one/two/three"},"tokens":[["/one",0,4,"word",0],["/one/two",0,8,"word",0],["/one/two/three",0,14,"word",0]]},
 {"name":"path_hierarchy delimiter, replacement, skip (OpenSearch docs)","request":{"tokenizer":{"type":"path_hierarchy","delimiter":"-","replacement":"/","skip":2},"text":"one-two-three-four-five"},
  "tokens":[["/three",7,13,"word",0],["/three/four",7,18,"word",0],["/three/four/five",7,23,"word",0]]},
 {"name":"path_hierarchy reverse","request":{"tokenizer":{"type":"path_hierarchy","reverse":True},"text":"one/two/three"},"tokens":[["one/two/three",0,13,"word",0],["two/three",4,13,"word",0],["three",8,13,"word",0]]},
 {"name":"pattern default (OpenSearch docs)","request":{"tokenizer":"pattern","text":"The foo_bar_size's default is 5."},"tokens":toks("The foo_bar_size's default is 5.",["The","foo_bar_size","s","default","is","5"])},
 {"name":"pattern comma","request":{"tokenizer":{"type":"pattern","pattern":","},"text":"comma,separated,values"},"tokens":toks("comma,separated,values",["comma","separated","values"])},
 {"name":"pattern group 1","request":{"tokenizer":{"type":"pattern","pattern":"\"((?:\\\\\"|[^\"]|\\\\\")+)\"","group":1},"text":"\"value\", \"value with embedded \\\" quote\""},
  "tokens":[["value",1,6,"word",0],["value with embedded \\\" quote",10,38,"word",1]]},
 {"name":"simple_pattern (OpenSearch docs)","request":{"tokenizer":{"type":"simple_pattern","pattern":"[0123456789]{3}"},"text":"fd-786-335-514-x"},"tokens":toks("fd-786-335-514-x",["786","335","514"])},
 {"name":"simple_pattern_split (OpenSearch docs)","request":{"tokenizer":{"type":"simple_pattern_split","pattern":"_"},"text":"an_underscored_phrase"},"tokens":toks("an_underscored_phrase",["an","underscored","phrase"])},
 {"name":"char_group (OpenSearch docs)","request":{"tokenizer":{"type":"char_group","tokenize_on_chars":["whitespace","-","\n"]},"text":"The QUICK brown-fox"},"tokens":toks("The QUICK brown-fox",["The","QUICK","brown","fox"])},
 {"name":"uax_url_email (OpenSearch docs)","request":{"tokenizer":"uax_url_email","text":"Email me at john.smith@global-international.com"},
  "tokens":toks("Email me at john.smith@global-international.com",["Email","me","at","john.smith@global-international.com"],[A,A,A,"<EMAIL>"])},
]
S="a quick fox jumps over the lazy dog"
filters=[
 {"name":"lowercase","request":{"tokenizer":"standard","filter":["lowercase"],"text":"THE Quick FoX JUMPs"},"tokens":toks("THE Quick FoX JUMPs",["the","quick","fox","jumps"],A,spans=["THE","Quick","FoX","JUMPs"])},
 {"name":"uppercase (story)","request":{"tokenizer":"keyword","filter":["uppercase"],"text":"Moneyball"},"tokens":[["MONEYBALL",0,9,"word",0]]},
 {"name":"asciifolding (story)","request":{"tokenizer":"keyword","filter":["asciifolding"],"text":"Léon"},"tokens":[["Leon",0,4,"word",0]]},
 {"name":"asciifolding preserve_original (OpenSearch docs)","request":{"tokenizer":"standard","filter":[{"type":"asciifolding","preserve_original":True}],"text":"açaí à la carte"},
  "tokens":[["acai",0,4,A,0],["açaí",0,4,A,0],["a",5,6,A,1],["à",5,6,A,1],["la",7,9,A,2],["carte",10,15,A,3]]},
 {"name":"stop _english_","request":{"tokenizer":"standard","filter":["stop"],"text":S},"tokens":toks(S,["quick","fox","jumps","over","lazy","dog"],A,positions=[1,2,3,4,6,7])},
 {"name":"stop custom (story)","request":{"tokenizer":"whitespace","filter":["lowercase",{"type":"stop","stopwords":["in","to"]}],"text":"Moneyball directed by Bennett Miller"},
  "tokens":toks("Moneyball directed by Bennett Miller",["moneyball","directed","by","bennett","miller"],spans=["Moneyball","directed","by","Bennett","Miller"])},
 {"name":"stop ignore_case","request":{"tokenizer":"whitespace","filter":[{"type":"stop","stopwords":["the"],"ignore_case":True}],"text":"The fox"},"tokens":[["fox",4,7,"word",1]]},
 {"name":"stemmer english (Porter)","request":{"tokenizer":"whitespace","filter":["stemmer"],"text":"fox running and jumping"},"tokens":toks("fox running and jumping",["fox","run","and","jump"],spans=["fox","running","and","jumping"])},
 {"name":"porter_stem","request":{"tokenizer":"whitespace","filter":["porter_stem"],"text":"generalizations happily relational"},"tokens":toks("generalizations happily relational",["gener","happili","relat"],spans=["generalizations","happily","relational"])},
 {"name":"snowball English","request":{"tokenizer":"whitespace","filter":[{"type":"snowball","language":"English"}],"text":"running generously"},"tokens":toks("running generously",["run","generous"],spans=["running","generously"])},
 {"name":"stemmer minimal_english","request":{"tokenizer":"whitespace","filter":[{"type":"stemmer","language":"minimal_english"}],"text":"ponies cats glasses"},"tokens":toks("ponies cats glasses",["pony","cat","glasse"],spans=["ponies","cats","glasses"])},
 {"name":"stemmer possessive_english","request":{"tokenizer":"whitespace","filter":[{"type":"stemmer","language":"possessive_english"}],"text":"dog's bone"},"tokens":toks("dog's bone",["dog","bone"],spans=["dog's","bone"])},
 {"name":"keyword_marker protects from the stemmer","request":{"tokenizer":"whitespace","filter":[{"type":"keyword_marker","keywords":["jumping"]},"stemmer"],"text":"fox running and jumping"},"tokens":toks("fox running and jumping",["fox","run","and","jumping"],spans=["fox","running","and","jumping"])},
 {"name":"stemmer_override","request":{"tokenizer":"whitespace","filter":[{"type":"stemmer_override","rules":["running, runs => run"]},"stemmer"],"text":"dogs running"},"tokens":toks("dogs running",["dog","run"],spans=["dogs","running"])},
 {"name":"synonym equivalence, expand","request":{"tokenizer":"whitespace","filter":[{"type":"synonym","synonyms":["quick, fast"]}],"text":"the quick fox"},"tokens":[["the",0,3,"word",0],["quick",4,9,"word",1],["fast",4,9,"SYNONYM",1],["fox",10,13,"word",2]]},
 {"name":"synonym explicit mapping","request":{"tokenizer":"whitespace","filter":[{"type":"synonym","synonyms":["quick => fast"]}],"text":"the quick fox"},"tokens":[["the",0,3,"word",0],["fast",4,9,"SYNONYM",1],["fox",10,13,"word",2]]},
 {"name":"synonym rules are analyzed by the chain before","request":{"tokenizer":"whitespace","filter":["lowercase",{"type":"synonym","synonyms":["Quick, FAST"]}],"text":"QUICK fox"},"tokens":[["quick",0,5,"word",0],["fast",0,5,"SYNONYM",0],["fox",6,9,"word",1]]},
 {"name":"word_delimiter (OpenSearch docs)","request":{"tokenizer":"keyword","filter":["word_delimiter"],"text":"Neil's-Super-Duper-XL500--42+AutoCoder"},
  "tokens":toks("Neil's-Super-Duper-XL500--42+AutoCoder",["Neil","Super","Duper","XL","500","42","Auto","Coder"])},
 {"name":"word_delimiter_graph (OpenSearch docs)","request":{"tokenizer":"keyword","filter":["word_delimiter_graph"],"text":"Neil's-Super-Duper-XL500--42+AutoCoder"},
  "tokens":toks("Neil's-Super-Duper-XL500--42+AutoCoder",["Neil","Super","Duper","XL","500","42","Auto","Coder"])},
 {"name":"word_delimiter_graph catenate_words","request":{"tokenizer":"whitespace","filter":[{"type":"word_delimiter_graph","catenate_words":True}],"text":"super-duper-xl"},
  "tokens":[["superduperxl",0,14,"word",0,3],["super",0,5,"word",0],["duper",6,11,"word",1],["xl",12,14,"word",2]]},
 {"name":"length","request":{"tokenizer":"whitespace","filter":[{"type":"length","min":0,"max":4}],"text":"the quick brown fox jumps over the lazy dog"},
  "tokens":toks("the quick brown fox jumps over the lazy dog",["the","fox","over","the","lazy","dog"],positions=[0,3,5,6,7,8])},
 {"name":"truncate (OpenSearch docs)","request":{"tokenizer":"whitespace","filter":["truncate"],"text":"the quinquennial extravaganza carried on"},
  "tokens":toks("the quinquennial extravaganza carried on",["the","quinquenni","extravagan","carried","on"],spans=["the","quinquennial","extravaganza","carried","on"])},
 {"name":"trim","request":{"tokenizer":"keyword","filter":["trim"],"text":" fox "},"tokens":[["fox",0,5,"word",0]]},
 {"name":"reverse","request":{"tokenizer":"whitespace","filter":["reverse"],"text":"quick fox jumps"},"tokens":toks("quick fox jumps",["kciuq","xof","spmuj"],spans=["quick","fox","jumps"])},
 {"name":"unique","request":{"tokenizer":"whitespace","filter":["unique"],"text":"the quick fox jumps the lazy fox"},"tokens":toks("the quick fox jumps the lazy fox",["the","quick","fox","jumps","lazy"],positions=[0,1,2,3,4])},
 {"name":"shingle defaults","request":{"tokenizer":"whitespace","filter":["shingle"],"text":"quick brown fox jumps"},
  "tokens":[["quick",0,5,"word",0],["quick brown",0,11,"shingle",0,2],["brown",6,11,"word",1],["brown fox",6,15,"shingle",1,2],["fox",12,15,"word",2],["fox jumps",12,21,"shingle",2,2],["jumps",16,21,"word",3]]},
 {"name":"ngram filter defaults","request":{"tokenizer":"whitespace","filter":["ngram"],"text":"Quick fox"},
  "tokens":[[g,0,5,"word",0] for g in ["Q","Qu","u","ui","i","ic","c","ck","k"]]+[[g,6,9,"word",1] for g in ["f","fo","o","ox","x"]]},
 {"name":"edge_ngram filter 1..3 (OpenSearch docs)","request":{"tokenizer":"standard","filter":[{"type":"edge_ngram","min_gram":1,"max_gram":3}],"text":"the quick brown fox jumps"},
  "tokens":[[g,s,e,A,p] for (w,s,e,p) in [("the",0,3,0),("quick",4,9,1),("brown",10,15,2),("fox",16,19,3),("jumps",20,25,4)] for g in [w[:1],w[:2],w[:3]]]},
 {"name":"elision (OpenSearch docs)","request":{"tokenizer":"standard","filter":["elision"],"text":"j’examine près du wharf"},"tokens":[["examine",0,9,A,0],["près",10,14,A,1],["du",15,17,A,2],["wharf",18,23,A,3]]},
 {"name":"pattern_replace filter (OpenSearch docs)","request":{"tokenizer":"whitespace","filter":[{"type":"pattern_replace","pattern":"(dog)","replacement":"watch$1"}],"text":"foxes jump lazy dogs"},
  "tokens":toks("foxes jump lazy dogs",["foxes","jump","lazy","watchdogs"],spans=["foxes","jump","lazy","dogs"])},
 {"name":"pattern_capture","request":{"tokenizer":"whitespace","filter":[{"type":"pattern_capture","patterns":["(\\p{Ll}+)"]}],"text":"abcDef"},"tokens":[["abcDef",0,6,"word",0],["abc",0,6,"word",0],["ef",0,6,"word",0]]},
 {"name":"decimal_digit (OpenSearch docs)","request":{"tokenizer":"whitespace","filter":["decimal_digit"],"text":"१-one two-२ ३"},"tokens":[["1-one",0,5,"word",0],["two-2",6,11,"word",1],["3",12,13,"word",2]]},
 {"name":"apostrophe (OpenSearch docs)","request":{"tokenizer":"standard","filter":["apostrophe"],"text":"Istanbul'a veya Istanbul'dan"},"tokens":[["Istanbul",0,10,A,0],["veya",11,15,A,1],["Istanbul",16,28,A,2]]},
 {"name":"limit","request":{"tokenizer":"standard","filter":[{"type":"limit","max_token_count":2}],"text":"quick fox jumps over lazy dog"},"tokens":[["quick",0,5,A,0],["fox",6,9,A,1]]},
 {"name":"fingerprint filter (OpenSearch docs)","request":{"tokenizer":"whitespace","filter":["fingerprint"],"text":"zebra jumps over resting resting dog"},"tokens":[["dog jumps over resting zebra",0,36,"fingerprint",0]]},
 {"name":"cjk_width (OpenSearch docs)","request":{"tokenizer":"keyword","filter":["cjk_width"],"text":"ｼｰｻｲﾄﾞﾗｲﾅｰ"},"tokens":[["シーサイドライナー",0,10,"word",0]]},
 {"name":"cjk_bigram (OpenSearch docs)","request":{"tokenizer":"standard","filter":["cjk_bigram"],"text":"東京都は、日本の首都であり"},
  "tokens":[[b,s,s+2,"<DOUBLE>",i] for i,(b,s) in enumerate([("東京",0),("京都",1),("都は",2),("日本",5),("本の",6),("の首",7),("首都",8),("都で",9),("であ",10),("あり",11)])]},
 {"name":"arabic_normalization","request":{"tokenizer":"keyword","filter":["arabic_normalization"],"text":"أحمد"},"tokens":[["احمد",0,4,"word",0]]},
]
chars=[
 {"name":"html_strip (story)","request":{"tokenizer":"keyword","filter":["lowercase"],"char_filter":["html_strip"],"text":"<b>Moneyball</b>"},"tokens":[["moneyball",3,16,"word",0]]},
 {"name":"html_strip block tags and entities (OpenSearch docs)","request":{"tokenizer":"keyword","char_filter":["html_strip"],"text":"<p>I&apos;m so <b>happy</b>!</p>"},"tokens":[["\nI'm so happy!\n",0,32,"word",0]]},
 {"name":"html_strip escaped_tags","request":{"tokenizer":"keyword","char_filter":[{"type":"html_strip","escaped_tags":["b"]}],"text":"<p>I&apos;m so <b>happy</b>!</p>"},"tokens":[["\nI'm so <b>happy</b>!\n",0,32,"word",0]]},
 {"name":"mapping (OpenSearch docs)","request":{"tokenizer":"keyword","char_filter":[{"type":"mapping","mappings":["٠ => 0","١ => 1","٢ => 2","٣ => 3","٤ => 4","٥ => 5","٦ => 6","٧ => 7","٨ => 8","٩ => 9"]}],"text":"My license plate is ٢٥٠١٥"},"tokens":[["My license plate is 25015",0,25,"word",0]]},
 {"name":"mapping offsets","request":{"tokenizer":"whitespace","char_filter":[{"type":"mapping","mappings":[":) => _happy_"]}],"text":"I'm :) now"},"tokens":[["I'm",0,3,"word",0],["_happy_",4,6,"word",1],["now",7,10,"word",2]]},
 {"name":"pattern_replace char filter","request":{"tokenizer":"standard","char_filter":[{"type":"pattern_replace","pattern":"(\\d+)-(\\d+)","replacement":"$1_$2"}],"text":"My credit card is 123-456"},"tokens":[["My",0,2,A,0],["credit",3,9,A,1],["card",10,14,A,2],["is",15,17,A,3],["123_456",18,25,"<NUM>",4]]},
]
uni=[
 {"name":"CJK ideographs","request":{"analyzer":"standard","text":"你好世界"},"tokens":[[c,i,i+1,"<IDEOGRAPHIC>",i] for i,c in enumerate("你好世界")]},
 {"name":"hiragana and katakana","request":{"tokenizer":"standard","text":"ひらカタカナ"},"tokens":[["ひ",0,1,"<HIRAGANA>",0],["ら",1,2,"<HIRAGANA>",1],["カタカナ",2,6,"<KATAKANA>",2]]},
 {"name":"hangul","request":{"tokenizer":"standard","text":"안녕하세요 세계"},"tokens":[["안녕하세요",0,5,"<HANGUL>",0],["세계",6,8,"<HANGUL>",1]]},
 {"name":"thai","request":{"tokenizer":"standard","text":"ภาษาไทย"},"tokens":[["ภาษาไทย",0,7,"<SOUTHEAST_ASIAN>",0]]},
 {"name":"emoji offsets in UTF-16 units","request":{"tokenizer":"standard","text":"I ❤️ 🍕!"},"tokens":[["I",0,1,A,0],["❤️",2,4,"<EMOJI>",1],["🍕",5,7,"<EMOJI>",2]]},
 {"name":"emoji ZWJ sequence","request":{"tokenizer":"standard","text":"👩‍👩‍👧 x"},"tokens":[["👩‍👩‍👧",0,8,"<EMOJI>",0],["x",9,10,A,1]]},
 {"name":"combining marks stay in the token","request":{"analyzer":"standard","text":"Cafe\u0301 noe\u0308l"},"tokens":[["cafe\u0301",0,5,A,0],["noe\u0308l",6,11,A,1]]},
 {"name":"supplementary letters count two units","request":{"tokenizer":"whitespace","text":"𝒜b c"},"tokens":[["𝒜b",0,3,"word",0],["c",4,5,"word",1]]},
 {"name":"asciifolding of accents and ligatures","request":{"tokenizer":"whitespace","filter":["asciifolding"],"text":"Ærøskøbing straße ﬁn"},"tokens":[["AEroskobing",0,10,"word",0],["strasse",11,17,"word",1],["fin",18,20,"word",2]]},
 {"name":"lowercase Greek and Cyrillic","request":{"tokenizer":"standard","filter":["lowercase"],"text":"ΑΘΗΝΑ Москва"},"tokens":[["αθηνα",0,5,A,0],["москва",6,12,A,1]]},
 {"name":"german snowball","request":{"analyzer":"german","text":"Häuser"},"tokens":[["haus",0,6,A,0]]},
]
def plain(text, terms, spans, positions=None):
    return toks(text, terms, A, positions=positions, spans=spans)
def excl(kind, words): return {"index":{"analysis":{"analyzer":{"my":{"type":kind,"stem_exclusion":words}}}}}
# The language analyzers: Lucene's TestFrenchAnalyzer, TestGermanAnalyzer, TestSpanishAnalyzer,
# TestItalianAnalyzer (assertAnalyzesTo / checkOneTerm cases) with offsets and positions added.
FR1="le la chien les aux chat du des à cheval"
FR2="lances chismes habitable chiste éléments captifs"
FR3="finissions souffrirent rugissante"
FR4="C3PO aujourd'hui oeuf ïâöûàä anticonstitutionnellement Java++"
CL="test@example.com U.S.A. AT&T www.nutch.org 216.239.63.104 R2D2 1-2-3 wi-fi"
PS="دوستان کتابها جامدات عليرضايي شادماني باحالتر خوبترين کباب English"
languages=[
 {"name":"french stop words","request":{"analyzer":"french","text":FR1},"tokens":plain(FR1,["chien","chat","cheval"],["chien","chat","cheval"],[2,5,9])},
 {"name":"french nouns and adjectives","request":{"analyzer":"french","text":FR2},
  "tokens":plain(FR2,["lanc","chism","habitabl","chist","element","captif"],FR2.split())},
 {"name":"french verbs","request":{"analyzer":"french","text":FR3},"tokens":plain(FR3,["finision","soufrirent","rugisant"],FR3.split())},
 {"name":"french everything else","request":{"analyzer":"french","text":FR4},
  "tokens":plain(FR4,["c3po","aujourd'hui","oeuf","ïaöuaä","anticonstitutionel","java"],["C3PO","aujourd'hui","oeuf","ïâöûàä","anticonstitutionnellement","Java"])},
 {"name":"french hyphen","request":{"analyzer":"french","text":"Jean-François"},"tokens":plain("Jean-François",["jean","francoi"],["Jean","François"])},
 {"name":"french elision","request":{"analyzer":"french","text":"voir l'embrouille"},"tokens":plain("voir l'embrouille",["voir","embrouil"],["voir","l'embrouille"])},
 {"name":"french stop words ignore case","request":{"analyzer":"french","text":"Votre"},"tokens":[]},
 {"name":"french accents","request":{"analyzer":"french","text":"sécuritaires securitaires"},"tokens":plain("sécuritaires securitaires",["securitair"]*2,["sécuritaires","securitaires"])},
 {"name":"french stem_exclusion","settings":excl("french",["habitable"]),"request":{"analyzer":"my","text":"habitable chiste"},
  "tokens":plain("habitable chiste",["habitable","chist"],["habitable","chiste"])},
 {"name":"german light stemmer","request":{"analyzer":"german","text":"Tisch Tische Tischen"},"tokens":plain("Tisch Tische Tischen",["tisch"]*3,["Tisch","Tische","Tischen"])},
 {"name":"german normalization","request":{"analyzer":"german","text":"Schaltflächen Schaltflaechen"},
  "tokens":plain("Schaltflächen Schaltflaechen",["schaltflach"]*2,["Schaltflächen","Schaltflaechen"])},
 {"name":"german stop words","request":{"analyzer":"german","text":"der Tisch und die Tische"},"tokens":plain("der Tisch und die Tische",["tisch","tisch"],["Tisch","Tische"],[1,4])},
 {"name":"german stem_exclusion","settings":excl("german",["tischen"]),"request":{"analyzer":"my","text":"tischen"},"tokens":[["tischen",0,7,A,0]]},
 {"name":"spanish","request":{"analyzer":"spanish","text":"chicana chicano los"},"tokens":plain("chicana chicano los",["chican","chican"],["chicana","chicano"])},
 {"name":"spanish stem_exclusion","settings":excl("spanish",["chicano"]),"request":{"analyzer":"my","text":"chicana chicano"},
  "tokens":plain("chicana chicano",["chican","chicano"],["chicana","chicano"])},
 {"name":"italian","request":{"analyzer":"italian","text":"abbandonata abbandonati dallo"},
  "tokens":plain("abbandonata abbandonati dallo",["abbandonat"]*2,["abbandonata","abbandonati"])},
 {"name":"italian elision","request":{"analyzer":"italian","text":"dell'Italia l'Italiano"},"tokens":plain("dell'Italia l'Italiano",["ital","italian"],["dell'Italia","l'Italiano"])},
 {"name":"italian stem_exclusion","settings":excl("italian",["abbandonata"]),"request":{"analyzer":"my","text":"abbandonata abbandonati"},
  "tokens":plain("abbandonata abbandonati",["abbandonata","abbandonat"],["abbandonata","abbandonati"])},
 {"name":"stop filter _french_","request":{"tokenizer":"standard","filter":[{"type":"stop","stopwords":"_french_"}],"text":"le chien et le chat"},
  "tokens":plain("le chien et le chat",["chien","chat"],["chien","chat"],[1,4])},
 {"name":"stop filter _german_ and _russian_","request":{"tokenizer":"standard","filter":[{"type":"stop","stopwords":["_german_","_russian_"]}],"text":"und Katze и кот"},
  "tokens":plain("und Katze и кот",["Katze","кот"],["Katze","кот"],[1,3])},
 {"name":"stop filter custom _dutch_ standard analyzer","settings":{"index":{"analysis":{"analyzer":{"my":{"type":"standard","stopwords":"_dutch_"}}}}},
  "request":{"analyzer":"my","text":"de kat en de hond"},"tokens":plain("de kat en de hond",["kat","hond"],["kat","hond"],[1,4])},
 {"name":"german light_german stemmer filter","request":{"tokenizer":"standard","filter":["lowercase",{"type":"stemmer","language":"light_german"}],"text":"Häusern"},
  "tokens":[["haus",0,7,A,0]]},
 {"name":"persian_stem (Lucene's TestPersianStemFilter)","request":{"tokenizer":"whitespace","filter":["persian_stem"],"text":PS},
  "tokens":toks(PS,["دوست","کتاب","جامد","عليرضا","شادمان","باحال","خوب","کباب","English"],spans=PS.split())},
 {"name":"classic (OpenSearch docs sentence)","request":{"tokenizer":"classic","text":Q},
  "tokens":toks(Q,["The","2","QUICK","Brown","Foxes","jumped","over","the","lazy","dog's","bone"],[A,A,A,A,A,A,A,A,A,"<APOSTROPHE>",A])},
 {"name":"classic email, acronym, company, host, number (Lucene's TestClassicAnalyzer)","request":{"tokenizer":"classic","text":CL},
  "tokens":toks(CL,["test@example.com","U.S.A.","AT&T","www.nutch.org","216.239.63.104","R2D2","1-2-3","wi","fi"],
                ["<EMAIL>","<ACRONYM>","<COMPANY>","<HOST>","<HOST>",A,"<NUM>",A,A])},
 {"name":"classic CJK one character each","request":{"tokenizer":"classic","text":"中文 x"},"tokens":[["中",0,1,"<CJ>",0],["文",1,2,"<CJ>",1],["x",3,4,A,2]]},
 {"name":"portuguese light stemmer (Lucene's TestPortugueseAnalyzer)","request":{"analyzer":"portuguese","text":"quilométricas quilométricos não"},
  "tokens":plain("quilométricas quilométricos não",["quilometric"]*2,["quilométricas","quilométricos"])},
 {"name":"portuguese stem_exclusion","settings":excl("portuguese",["quilométricas"]),"request":{"analyzer":"my","text":"quilométricas quilométricos"},
  "tokens":plain("quilométricas quilométricos",["quilométricas","quilometric"],["quilométricas","quilométricos"])},
]
for name,data in [("analyzers",analyzers),("tokenizers",tokenizers),("token_filters",filters),("char_filters",chars),("unicode",uni),("languages",languages)]:
    with open(name+".json","w") as f:
        json.dump(data,f,ensure_ascii=False,indent=1)
print("ok")
