# Writes lucene_*.json: golden tables transcribed from Lucene's own tests (TestASCIIFoldingFilter,
# TestClassicAnalyzer, TestHTMLStripCharFilter, TestUAX29URLEmailTokenizer). The expected terms and
# types are Lucene's asserts; this script only computes UTF-16 offsets of the literal spans, and
# positions (one per token unless given).
import json
def u16(s): return len(s.encode('utf-16-le'))//2
def toks(text, terms, typ="word", positions=None, spans=None):
    out=[]; pos=0
    for i,t in enumerate(terms):
        src = spans[i] if spans else t
        j = text.index(src, pos)
        p = positions[i] if positions else i
        ty = typ[i] if isinstance(typ, list) else typ
        out.append([t, u16(text[:j]), u16(text[:j+len(src)]), ty, p])
        pos = j+len(src)
    return out
A="<ALPHANUM>"

LATIN1=("Des mot clés À LA CHAÎNE À Á Â Ã Ä Å Æ Ç È É Ê Ë Ì Í Î Ï Ĳ Ð Ñ Ò Ó Ô Õ Ö Ø Œ Þ Ù Ú Û Ü Ý Ÿ"
        " à á â ã ä å æ ç è é ê ë ì í î ï ĳ ð ñ ò ó ô õ ö ø œ ß þ ù ú û ü ý ÿ ﬁ ﬂ")
LATIN1_FOLDED=("Des mot cles A LA CHAINE A A A A A A AE C E E E E I I I I IJ D N O O O O O O OE TH U U U U Y Y"
               " a a a a a a ae c e e e e i i i i ij d n o o o o o o oe ss th u u u u y y fi fl").split()
FOLD_MORE="Ꜳ ⒜ ǅ ⑳ ⒛ ⒇ ɐ ᶏ ⓐ ａ ‐ ⁻ ❝ ⸨ ‼ ⁉ ᴁ ẞ Ǆ ǲ ʣ ﬀ ﬃ ﬆ ½"
FOLD_MORE_OUT="AA (a) Dz 20 20. (20) a a a a - - \" (( !! !? AE SS DZ Dz dz ff ffi st ½".split()
asciifolding=[
 {"name":"Lucene testLatin1Accents","request":{"tokenizer":"whitespace","filter":["asciifolding"],"text":LATIN1},
  "tokens":toks(LATIN1,LATIN1_FOLDED,spans=LATIN1.split())},
 {"name":"Lucene testAllFoldings (a sample beyond Latin-1)","request":{"tokenizer":"whitespace","filter":["asciifolding"],"text":FOLD_MORE},
  "tokens":toks(FOLD_MORE,FOLD_MORE_OUT,spans=FOLD_MORE.split())},
 {"name":"Lucene testLatin1Accents preserveOriginal (folded first, then the original)","request":{"tokenizer":"whitespace","filter":[{"type":"asciifolding","preserve_original":True}],"text":"Des mot clés À"},
  "tokens":[["Des",0,3,"word",0],["mot",4,7,"word",1],["cles",8,12,"word",2],["clés",8,12,"word",2],["A",13,14,"word",3],["À",13,14,"word",3]]},
]


def classic(name, text, terms, types=None, spans=None, positions=None, stop=False, max_len=None):
    """ClassicAnalyzer's chain: classic tokenizer, classic filter, lowercase (and stop)."""
    tok = "classic" if max_len is None else {"type":"classic","max_token_length":max_len}
    filters = ["classic","lowercase"] + (["stop"] if stop else [])
    return {"name":"Lucene TestClassicAnalyzer."+name,"request":{"tokenizer":tok,"filter":filters,"text":text},
            "tokens":toks(text,terms,types or A,positions=positions,spans=spans or [t for t in terms])}
def cspans(text, terms): return [text[text.lower().index(t):text.lower().index(t)+len(t)] for t in terms]
LONG="a"*255
classic_cases=[
 classic("testMaxTermLength","ab cd toolong xy z",["ab","cd","xy","z"],positions=[0,1,3,4],max_len=5),
 classic("testMaxTermLength3","ab cd "+LONG+" xy z",["ab","cd",LONG,"xy","z"]),
 classic("testMaxTermLength3 (256 skipped)","ab cd "+LONG+"a xy z",["ab","cd","xy","z"],positions=[0,1,3,4]),
 classic("testAlphanumeric","B2B 2B",["b2b","2b"],spans=["B2B","2B"]),
 classic("testUnderscores","word_having_underscore",["word","having","underscore"]),
 classic("testUnderscores (stop)","word_with_underscore_and_stopwords",["word","underscore","stopwords"],positions=[0,2,4],stop=True),
 classic("testDelimiters","some-dashed-phrase dogs,chase,cats ac/dc",["some","dashed","phrase","dogs","chase","cats","ac","dc"]),
 classic("testApostrophes","O'Reilly you're she's Jim's don't O'Reilly's",["o'reilly","you're","she","jim","don't","o'reilly"],["<APOSTROPHE>"]*6,
         spans=["O'Reilly","you're","she's","Jim's","don't","O'Reilly's"]),
 classic("testTSADash","s-class t-com a-class",["s","class","t","com","class"],positions=[0,1,2,3,5],stop=True),
 classic("testCompanyNames","AT&T Excite@Home",["at&t","excite@home"],"<COMPANY>",spans=["AT&T","Excite@Home"]),
 classic("testLucene1140","www.nutch.org.",["www.nutch.org"],"<HOST>"),
 classic("testDomainNames","www.nutch.org",["www.nutch.org"],"<HOST>"),
 classic("testEMailAddresses","test@example.com first.lastname@example.com first_lastname@example.com",
         ["test@example.com","first.lastname@example.com","first_lastname@example.com"],"<EMAIL>"),
 classic("testNumeric","21.35 R2D2 C3PO 216.239.63.104 1-2-3 a1-b2-c3 a1-b-c3",["21.35","r2d2","c3po","216.239.63.104","1-2-3","a1-b2-c3","a1-b-c3"],
         ["<HOST>",A,A,"<HOST>","<NUM>","<NUM>","<NUM>"],spans=["21.35","R2D2","C3PO","216.239.63.104","1-2-3","a1-b2-c3","a1-b-c3"]),
 classic("testTextWithNumbers","David has 5000 bones",["david","has","5000","bones"],spans=["David","has","5000","bones"]),
 classic("testVariousText","foo      bar .  FOO <> BAR \"QUOTED\" word",["foo","bar","foo","bar","quoted","word"],
         spans=["foo","bar","FOO","BAR","QUOTED","word"]),
 classic("testAcronyms","U.S.A.",["usa"],"<ACRONYM>",spans=["U.S.A."]),
 classic("testCPlusPlusHash","C++ C#",["c","c"],spans=["C","C"]),
 classic("testKorean","안녕하세요 한글입니다",["안녕하세요","한글입니다"]),
 classic("testComplianceFileName","2004.jpg",["2004.jpg"],"<HOST>"),
 classic("testComplianceNumericIncorrect","62.46",["62.46"],"<HOST>"),
 classic("testComplianceNumericLong","978-0-94045043-1",["978-0-94045043-1"],"<NUM>"),
 classic("testComplianceNumericFile","78academyawards/rules/rule02.html",["78academyawards/rules/rule02.html"],"<NUM>"),
 classic("testComplianceNumericWithUnderscores","2006-03-11t082958z_01_ban130523_rtridst_0_ozabs",["2006-03-11t082958z_01_ban130523_rtridst_0_ozabs"],"<NUM>"),
 classic("testComplianceNumericWithDash","mid-20th",["mid-20th"],"<NUM>"),
 classic("testComplianceManyTokens","/money.cnn.com/magazines/fortune/fortune_archive/2007/03/19/8402357/index.htm safari-0-sheikh-zayed-grand-mosque.jpg",
         ["money.cnn.com","magazines","fortune","fortune","archive/2007/03/19/8402357","index.htm","safari-0-sheikh","zayed","grand","mosque.jpg"],
         ["<HOST>",A,A,A,"<NUM>","<HOST>","<NUM>",A,A,"<HOST>"]),
 classic("testJava14BWCompatibility","test\u02C6test",["test","test"]),
]


def strip(name, html, gold, start=0, escaped=None):
    """The filtered text as one keyword token: Lucene's gold string, from correctOffset(0) to the end."""
    cf = "html_strip" if escaped is None else {"type":"html_strip","escaped_tags":escaped}
    return {"name":"Lucene TestHTMLStripCharFilter."+name,"request":{"tokenizer":"keyword","char_filter":[cf],"text":html},
            "tokens":[[gold,start,u16(html),"word",0]]}
html_strip_cases=[
 strip("test",'<div class="foo">this is some text</div> here is a <a href="#bar">link</a> and '
       'another <a href="http://lucene.apache.org/">link</a>. This is an entity: &amp; plus a &lt;.  Here is an &. <!-- is a comment -->',
       "\nthis is some text\n here is a link and another link. This is an entity: & plus a <.  Here is an &. "),
 strip("testGamma","&Gamma;","\u0393",escaped=["reserved"]),
 strip("testEntities","&nbsp; &lt;foo&gt; &Uuml;bermensch &#61; &Gamma; bar &#x393;","\u00a0 <foo> \u00dcbermensch = \u0393 bar \u0393",escaped=["reserved"]),
 strip("testMoreEntities","&nbsp; &lt;junk/&gt; &nbsp; &#33; &#64; and &#8217;","\u00a0 <junk/> \u00a0 ! @ and \u2019",escaped=["reserved"]),
 strip("testMalformedHTML 1","a <a hr<ef=aa<a>> </close</a>","a <a hr<ef=aa> </close"),
 strip("testMalformedHTML 2",'<a href=http://dmoz.org/cgi-bin/add.cgi?where=/arts/" class=lu style="font-size: 9px" target=dmoz>Submit a Site</a>',
       "Submit a Site",start=len('<a href=http://dmoz.org/cgi-bin/add.cgi?where=/arts/" class=lu style="font-size: 9px" target=dmoz>')),
 strip("testMalformedHTML <link> with a stray quote",'<link rel="alternate" type="application/rss+xml" title="San Francisco " 2008 RSS Feed" href="http://2008.sf.wordcamp.org/feed/" />',"\n"),
 strip("testMalformedHTML advancedmd",'The <a href=<a href="http://www.advancedmd.com>medical">http://www.advancedmd.com>medical</a> practice software</a>',
       "The <a href=http://www.advancedmd.com>medical practice software"),
 strip("testMalformedHTML Hubert",'<li><a href="#28" title="Hubert "Geese" Ausby">Hubert "Geese" Ausby</a></li>','\nHubert "Geese" Ausby\n'),
 strip("testMalformedHTML unclosed quote",'<a href="','<a href="'),
 strip("testMalformedHTML <ahref=http:..","<ahref=http:..","<ahref=http:.."),
 strip("testMalformedHTML Lamborghini",'<a class="at" name="Lamborghini  href="http://lamborghini.coolbegin.com">Lamborghini /a>',"Lamborghini /a>",
       start=len('<a class="at" name="Lamborghini  href="http://lamborghini.coolbegin.com">')),
 strip("testMalformedHTML <![if ! IE]>",'<![if ! IE]>\n<link href="http://i.deviantart.com/icons/favicon.png" rel="shortcut icon"/>\n<![endif]>',"\n\n\n",start=12),
 strip("testMalformedHTML BHAA",'<a href="http://bhaa.ie/calendar/event.php?eid=20081203150127531"">BHAA Eircom 2 &amp; 5 miles CC combined start</a>',
       "BHAA Eircom 2 & 5 miles CC combined start",start=len('<a href="http://bhaa.ie/calendar/event.php?eid=20081203150127531"">')),
]


def uax(name, text, terms, types):
    return {"name":"Lucene TestUAX29URLEmailTokenizer."+name,"request":{"tokenizer":"uax_url_email","text":text},"tokens":toks(text,terms,types)}
MAILTO=("mailto:personA@example.com,personB@example.com?cc=personC@example.com"
        "&subject=Subjectivity&body=Corpusivity%20or%20something%20like%20that")
uax_cases=[
 uax("testMailtoSchemeEmails","mailto:test@example.org",["mailto","test@example.org"],[A,"<EMAIL>"]),
 uax("testMailtoSchemeEmails (TODO cases as asserted)",MAILTO,
     ["mailto","personA@example.com",",personB@example.com","?cc=personC@example.com","subject","Subjectivity","body","Corpusivity","20or","20something","20like","20that"],
     [A,"<EMAIL>","<EMAIL>","<EMAIL>"]+[A]*8),
 uax("testOffsets/testTypes","David has 5000 bones",["David","has","5000","bones"],[A,A,"<NUM>",A]),
 uax("testVariousTextSA",'foo      bar .  FOO <> BAR "QUOTED" word',["foo","bar","FOO","BAR","QUOTED","word"],A),
 uax("testApostrophesSA","O'Reilly you're she's Jim's don't O'Reilly's",["O'Reilly","you're","she's","Jim's","don't","O'Reilly's"],A),
 uax("URLs with and without a scheme (grammar)","see https://opensearch.org/docs?q=1#top or www.example.com/path and example.com.",
     ["see","https://opensearch.org/docs?q=1#top","or","www.example.com/path","and","example.com"],[A,"<URL>",A,"<URL>",A,"<URL>"]),
 uax("LUCENE-5391: a host followed by a word character is a word","example.comx",["example.comx"],A),
]

TABLES={"lucene_asciifolding":asciifolding,"lucene_classic":classic_cases,"lucene_html_strip":html_strip_cases,"lucene_uax_url_email":uax_cases}
if __name__=="__main__":
    for name,data in TABLES.items():
        with open(name+".json","w") as f:
            json.dump(data,f,ensure_ascii=False,indent=1)
