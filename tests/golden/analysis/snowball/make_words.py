"""Writes the word lists behind ../snowball_stemmers.json (fixed seed): ~1,900 words sampled from
each voc.txt of Debian's snowball-data (0+20210120) for Armenian, Basque, Catalan, Irish and
Lithuanian; for Estonian (absent there) the Estonian stop list, seed words, and seed words joined
with every suffix of the Estonian program's among tables (read from snowballstemmer 3.0.1)."""
import random
import re
import sys

data, estonian_py, stop_list = sys.argv[1], sys.argv[2], sys.argv[3]
random.seed(20261122)
for lang in ["armenian", "basque", "catalan", "irish", "lithuanian"]:
    words = [w.strip() for w in open(f"{data}/{lang}/voc.txt", encoding="utf-8") if w.strip()]
    pick = sorted(set(random.sample(words, 1900))) + [w for w in words if len(w) <= 2][:50]
    pick = list(dict.fromkeys(pick))
    open(f"{lang}.txt", "w", encoding="utf-8").write("\n".join(pick) + "\n")

random.seed(20261122)
stops = [w.strip() for w in open(stop_list, encoding="utf-8") if w.strip() and not w.startswith("#")]
seeds = """maja linn raamat inimene kool tööline laps keel riik aasta päev töö sõber vesi mets jõgi ilus
suur väike kirjutama lugema rääkima tegema käsi jalg õpetaja ülikool küsimus vastus seadus valitsus
ettevõte tänav auto süda pea silm meri saar lumi tuul ilm elu mõte tütar poeg ema isa hobune lind kala
puu lill kivi tee uks aken laud tool voodi pilt muusika laul kirik küla talu põld heinamaa rahvas eesti
soome vene saksa inglise keelne kirjanik teadlane arst haigla õde vend naine mees tüdruk poiss vanaema
vanaisa sõna lause tekst kiri leht ajaleht ajakiri raadio televiisor arvuti telefon kõne helistama
kuulama vaatama nägema tulema minema jooksma hüppama ujuma sõitma lendama kasvama elama surema sündima
armastama vihkama mõtlema teadma tundma oskama saama pidama võima tahtma hakkama jääma andma võtma
tooma viima panema sulgema avama alustama lõpetama õppima õpetama küsima vastama kiitma ootama aitama
otsima leidma kaotama ostma müüma maksma laenama hoidma kandma""".split()
suffixes = sorted({m.group(1) for m in re.finditer(r'Among\(u"([^"]*)"', open(estonian_py, encoding="utf-8").read())})
words = set(stops) | set(seeds)
candidates = []
for s in seeds:
    for x in suffixes:
        candidates.append(s + x)
        if s[-1] in "aeiu":
            candidates.append(s[:-1] + x)
words |= set(random.sample(candidates, 1700))
open("estonian.txt", "w", encoding="utf-8").write("\n".join(sorted(words)) + "\n")
