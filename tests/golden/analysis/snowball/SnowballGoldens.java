import java.io.*;
import java.nio.charset.StandardCharsets;
import java.nio.file.*;
import java.util.*;
import org.tartarus.snowball.SnowballProgram;

/** Prints {"language": [[word, stem], ...], ...} for the words files given as lang=path. */
public class SnowballGoldens {
  static String q(String s) {
    StringBuilder b = new StringBuilder("\"");
    for (char c : s.toCharArray()) {
      if (c == '"' || c == '\\') b.append('\\').append(c);
      else if (c < 0x20) b.append(String.format("\\u%04x", (int) c));
      else b.append(c);
    }
    return b.append('"').toString();
  }
  public static void main(String[] args) throws Exception {
    PrintStream out = new PrintStream(System.out, true, "UTF-8");
    out.println("{");
    for (int a = 0; a < args.length; a++) {
      String[] kv = args[a].split("=", 2);
      String cls = Character.toUpperCase(kv[0].charAt(0)) + kv[0].substring(1) + "Stemmer";
      SnowballProgram p = (SnowballProgram) Class.forName("org.tartarus.snowball.ext." + cls).getDeclaredConstructor().newInstance();
      List<String> words = Files.readAllLines(Paths.get(kv[1]), StandardCharsets.UTF_8);
      out.println("  " + q(kv[0]) + ": [");
      for (int i = 0; i < words.size(); i++) {
        p.setCurrent(words.get(i));
        p.stem();
        out.print("    [" + q(words.get(i)) + ", " + q(p.getCurrent()) + "]" + (i + 1 < words.size() ? ",\n" : "\n"));
      }
      out.println("  ]" + (a + 1 < args.length ? "," : ""));
    }
    out.println("}");
  }
}
