import org.apache.lucene.analysis.*;
import org.apache.lucene.analysis.core.KeywordTokenizer;
import org.apache.lucene.analysis.tokenattributes.*;
import java.io.*;
import java.util.*;
import java.util.function.Function;

public class LanguageGoldens {
  static String esc(String s) {
    StringBuilder b = new StringBuilder("\"");
    for (char c : s.toCharArray()) {
      if (c == '"' || c == '\\') b.append('\\').append(c);
      else if (c < 0x20 || c > 0x7e) b.append(String.format("\\u%04x", (int) c));
      else b.append(c);
    }
    return b.append('"').toString();
  }
  static String tokens(Analyzer a, String text) throws IOException {
    StringBuilder b = new StringBuilder("[");
    try (TokenStream ts = a.tokenStream("f", text)) {
      CharTermAttribute t = ts.addAttribute(CharTermAttribute.class);
      OffsetAttribute o = ts.addAttribute(OffsetAttribute.class);
      TypeAttribute ty = ts.addAttribute(TypeAttribute.class);
      PositionIncrementAttribute pi = ts.addAttribute(PositionIncrementAttribute.class);
      ts.reset();
      int pos = -1; boolean first = true;
      while (ts.incrementToken()) {
        pos += pi.getPositionIncrement();
        if (!first) b.append(",");
        first = false;
        b.append("[").append(esc(t.toString())).append(",").append(o.startOffset()).append(",").append(o.endOffset()).append(",").append(esc(ty.type())).append(",").append(pos).append("]");
      }
      ts.end();
    }
    return b.append("]").toString();
  }
  static List<String> out = new ArrayList<>();
  static void caseOf(String name, String request, Analyzer a, String text) throws IOException {
    out.add("{\"name\":" + esc(name) + ",\"request\":" + request + ",\"tokens\":" + tokens(a, text) + "}");
  }
  static Analyzer filterChain(Function<TokenStream, TokenStream> f) {
    return new Analyzer() {
      protected TokenStreamComponents createComponents(String field) {
        Tokenizer t = new KeywordTokenizer();
        return new TokenStreamComponents(t, f.apply(t));
      }
    };
  }
  static String random(Random r, String alphabet, int max) {
    int n = 1 + r.nextInt(max);
    StringBuilder b = new StringBuilder();
    for (int i = 0; i < n; i++) b.append(alphabet.charAt(r.nextInt(alphabet.length())));
    return b.toString();
  }
  static String range(int from, int to) { StringBuilder b = new StringBuilder(); for (int c = from; c <= to; c++) b.append((char) c); return b.toString(); }
  public static void main(String[] args) throws Exception {
    String mode = args[0];
    Random r = new Random(42);
    if (mode.equals("filters")) {
      Object[][] filters = {
        {"arabic_stem", (Function<TokenStream, TokenStream>) org.apache.lucene.analysis.ar.ArabicStemFilter::new, range(0x621, 0x64A) + "\u0627\u0644\u0648\u0647\u064a\u0629\u0646\u062a", new String[]{"الحسن", "والحسن", "بالحسن", "كالحسن", "فالحسن", "للاخر", "وحسن", "ساهدهات", "ساهدان", "ساهدات", "ساهدون", "ساهدين", "ساهديه", "ساهدية", "ساهده", "ساهدة", "ساهدي", "وساهدون", "ساهدهان", "ال", "الو", "وا"}},
        {"sorani_normalization", (Function<TokenStream, TokenStream>) org.apache.lucene.analysis.ckb.SoraniNormalizationFilter::new, "\u064A\u0649\u0643\u0647\u200C\u0629\u06BE\u0631\u0692\u0640\u064B\u064C\u064F\u0652\u200E\u0628\u0627\u00AD", new String[]{"\u064A", "\u0647\u200Cب", "ابه", "\u0631ر"}},
        {"hindi_normalization", (Function<TokenStream, TokenStream>) org.apache.lucene.analysis.hi.HindiNormalizationFilter::new, range(0x900, 0x97F) + "\u200C\u200D\u0928\u094D", new String[]{"अँगरेज़ी", "अंगरेजि", "अँग्रेज़ी", "अंगरेजी", "क़िताब", "किताब", "आईऊ"}},
        {"indic_normalization", (Function<TokenStream, TokenStream>) org.apache.lucene.analysis.in.IndicNormalizationFilter::new, range(0x900, 0x97F) + range(0x980, 0x9FF) + range(0xD00, 0xD7F) + range(0xA00, 0xA7F) + "\u200D", new String[]{"\u0905\u093e\u0945", "\u09a4\u09cd\u200d", "\u0d23\u0d4d\u200d", "\u0a72\u0a3f"}},
        {"bengali_normalization", (Function<TokenStream, TokenStream>) org.apache.lucene.analysis.bn.BengaliNormalizationFilter::new, range(0x980, 0x9FF) + "\u09CD\u09CD\u09AF\u09AC\u0983", new String[]{"চাঁদ", "ঈদ", "দ্বিতীয়", "ক্ষেত্র", "ঙ", "ব্যক্তি", "উদ্বেগ", "দুঃখ", "শান্তি"}},
        {"scandinavian_normalization", (Function<TokenStream, TokenStream>) org.apache.lucene.analysis.miscellaneous.ScandinavianNormalizationFilter::new, "aAoOeEåÅæÆäÄöÖøØb", new String[]{"räksmörgås", "raeksmoergaas", "RÄKSMÖRGÅS", "RAEKSMOERGAAS", "blåbærsyltetøj", "blaabaersyltetoej"}},
        {"scandinavian_folding", (Function<TokenStream, TokenStream>) org.apache.lucene.analysis.miscellaneous.ScandinavianFoldingFilter::new, "aAoOeEåÅæÆäÄöÖøØb", new String[]{"räksmörgås", "raeksmoergaas", "RÄKSMÖRGÅS", "blåbærsyltetøj", "blaabaersyltetoej"}},
        {"serbian_normalization", (Function<TokenStream, TokenStream>) org.apache.lucene.analysis.sr.SerbianNormalizationFilter::new, range(0x430, 0x45F) + "đžčćšab", new String[]{"ђура", "đura", "љубав", "њива", "џеп", "абвгдђежзијклљмнњопрстћуфхцчџш"}},
      };
      for (Object[] f : filters) {
        String name = (String) f[0];
        @SuppressWarnings("unchecked") Function<TokenStream, TokenStream> fn = (Function<TokenStream, TokenStream>) f[1];
        Analyzer a = filterChain(fn);
        List<String> texts = new ArrayList<>(Arrays.asList((String[]) f[3]));
        for (int i = 0; i < 40; i++) texts.add(random(r, (String) f[2], 9));
        int k = 0;
        for (String text : texts) {
          String req = "{\"tokenizer\":\"keyword\",\"filter\":[" + esc(name) + "],\"text\":" + esc(text) + "}";
          caseOf(name + " " + (k++), req, a, text);
        }
      }
      Object[][] lowers = {
        {"greek", (Function<TokenStream, TokenStream>) org.apache.lucene.analysis.el.GreekLowerCaseFilter::new, range(0x386, 0x3CE) + "AΣ", new String[]{"ΑΆΒΓΔΕΈΖΗΉΘΙΊΪΚΛΜΝΞΟΌΠΡΣΤΥΎΫΦΧΨΩΏ", "αάβγδεέζηήθιίϊΐκλμνξοόπρσςτυύϋΰφχψωώ"}},
        {"turkish", (Function<TokenStream, TokenStream>) org.apache.lucene.analysis.tr.TurkishLowerCaseFilter::new, "IİıiI\u0307\u0307\u0301\u0327aAÇŞ\u0300b", new String[]{"ISTANBUL", "İSTANBUL", "I\u0307STANBUL", "I\u0301\u0307S", "I\u0301S\u0307", "Iİ"}},
        {"irish", (Function<TokenStream, TokenStream>) org.apache.lucene.analysis.ga.IrishLowerCaseFilter::new, "nNtTAEIOUÁÉÍÓÚaeb", new String[]{"nAthair", "tAthair", "nathair", "tÓin", "NAthair", "n"}},
      };
      for (Object[] f : lowers) {
        String lang = (String) f[0];
        @SuppressWarnings("unchecked") Function<TokenStream, TokenStream> fn = (Function<TokenStream, TokenStream>) f[1];
        Analyzer a = filterChain(fn);
        List<String> texts = new ArrayList<>(Arrays.asList((String[]) f[3]));
        for (int i = 0; i < 30; i++) texts.add(random(r, (String) f[2], 9));
        int k = 0;
        for (String text : texts) {
          String req = "{\"tokenizer\":\"keyword\",\"filter\":[{\"type\":\"lowercase\",\"language\":\"" + lang + "\"}],\"text\":" + esc(text) + "}";
          caseOf(lang + " lowercase " + (k++), req, a, text);
        }
      }
    } else if (mode.equals("stemmers")) {
      String greekWords = "καθεστωτοσ καθεστωτων γεγονοτοσ καθεστωτα τατογιου γεγονοτα καθεστωσ σκαγιου ολογιων κρεατοσ τατογια γεγονοσ φαγιου σκαγια φαγια φωτοσ κρεασ φωτα φωσ μαμαδεσ παπαδεσ πατεραδεσ λουλουδεσ καφεδεσ πρεσβεων ελεων παλαιοι αρχαια αρχαιου πρωτοτυπα πρωτοτυπου ραδιοφωνικα ταγμα ταγματοσ ταγματων ευρυτερα ευρυτατοσ αγαπαμε αγαπησαμε αναπαμε καλεσαμε αγαπανε τρανε τρεχανε αγαπησετε βενετε κανετε οδετε αρχοντασ κρεοντασ ομαστε ονομαστε ιομαστε ονιομαστε πιεστε εστε ζεστε αγαπηκεσ θηκα σκωληκεσ πηγαινουσα φαρμακουσα αγαπηθηκα αγαπαγεσ φαγεσ ψοφαγεσ κολλαγα ησου νησου ηστε σβηστε ησουνε ρουνε ησουμε φουμε ματων ματα δομησ ολιγοτερ πηγαινουνε αγαπιοντουσαν αγαπουσαν ανθρωποσ μεγαλυτεροσ εργασια καλυτεροσ ουσιαστικα αιμοδοσια τα";
      Function<TokenStream, TokenStream> greek = t -> new org.apache.lucene.analysis.el.GreekStemFilter(new org.apache.lucene.analysis.el.GreekLowerCaseFilter(t));
      Analyzer a = filterChain(greek);
      List<String> texts = new ArrayList<>(Arrays.asList(greekWords.split(" ")));
      String alphabet = "αβγδεζηθικλμνξοπρστυφχψωςσσσοοοιιιαααεεεννν";
      for (int i = 0; i < 200; i++) texts.add(random(r, alphabet, 12));
      List<String> sfx = java.nio.file.Files.readAllLines(java.nio.file.Paths.get("greek_suffixes.txt"));
      for (int i = 0; i < 1200; i++) texts.add(random(r, alphabet, 4) + sfx.get(r.nextInt(sfx.size())) + (r.nextInt(3) == 0 ? sfx.get(r.nextInt(sfx.size())) : ""));
      for (String x : sfx) texts.add(x);
      int k = 0;
      for (String text : texts) {
        String req = "{\"tokenizer\":\"keyword\",\"filter\":[{\"type\":\"lowercase\",\"language\":\"greek\"},{\"type\":\"stemmer\",\"language\":\"greek\"}],\"text\":" + esc(text) + "}";
        caseOf("greek stemmer " + (k++), req, a, text);
      }
      Analyzer bn = filterChain(org.apache.lucene.analysis.bn.BengaliStemFilter::new);
      String[] bnWords = {"কিনেছিলাম", "কিনিতেছিলাম", "কিনিতেছিলেন", "কিনিয়াছিলাম", "কিনিতেছিলি", "বাড়িতে", "বাড়ি", "খেয়েছিলাম", "ছেলেদেরকে", "বইগুলো", "বইখানা", "ঘরে", "বলতে", "যাবে", "কাকা"};
      texts = new ArrayList<>(Arrays.asList(bnWords));
      for (int i = 0; i < 60; i++) texts.add(random(r, range(0x985, 0x9CD) + "\u09BF\u09BE\u09C7\u09DF", 10));
      k = 0;
      for (String text : texts) {
        String req = "{\"tokenizer\":\"keyword\",\"filter\":[{\"type\":\"stemmer\",\"language\":\"bengali\"}],\"text\":" + esc(text) + "}";
        caseOf("bengali stemmer " + (k++), req, bn, text);
      }
      Analyzer ar = filterChain(org.apache.lucene.analysis.ar.ArabicStemFilter::new);
      for (k = 0; k < 40; k++) {
        String text = random(r, range(0x621, 0x64A) + "\u0627\u0644\u0648\u0647\u064a\u0629\u0646\u062a", 9);
        String req = "{\"tokenizer\":\"keyword\",\"filter\":[{\"type\":\"stemmer\",\"language\":\"arabic\"}],\"text\":" + esc(text) + "}";
        caseOf("arabic stemmer " + k, req, ar, text);
      }
    } else {
      for (int i = 1; i < args.length; i += 2) {
        String lang = args[i];
        Analyzer a = (Analyzer) Class.forName("org.apache.lucene.analysis." + args[i + 1]).getConstructor().newInstance();
        BufferedReader br = new BufferedReader(new InputStreamReader(new FileInputStream("texts/" + lang + ".txt"), "UTF-8"));
        String line; int k = 0;
        while ((line = br.readLine()) != null) {
          if (line.isEmpty()) continue;
          caseOf(lang + " analyzer " + (k++), "{\"analyzer\":\"" + lang + "\",\"text\":" + esc(line) + "}", a, line);
        }
      }
    }
    System.out.println("[\n" + String.join(",\n", out) + "\n]");
  }
}
