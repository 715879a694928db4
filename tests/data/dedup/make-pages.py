import html, os, random, sys
out, gold = sys.argv[1], sys.argv[2]
def article(name, change=None):
    lines = [l.strip() for l in open(os.path.join(gold, "cleanportaleval-bbc.co.uk_news_%s.txt" % name), encoding="utf-8") if l.strip()]
    if change is not None:  # one sentence of line `change` replaced
        first = lines[change].split(". ")
        first[0] = "Several readers wrote in to say that the shop had in fact opened two years earlier"
        lines[change] = ". ".join(first)
    return "<h1>%s</h1>\n%s" % (html.escape(lines[0]), "\n".join("<p>%s</p>" % html.escape(l) for l in lines[1:]))
def nav(seed):
    r = random.Random(seed)
    items = r.sample("Home News Sport Weather Culture Business Travel Science Health Opinion Video Podcasts Archive Contact Jobs Shop".split(), 9)
    return "<nav><ul>%s</ul></nav>" % "".join('<li><a href="/%s">%s</a></li>' % (i.lower(), i) for i in items)
def ads(seed):
    r = random.Random(seed)
    lines = ["Buy cheap flights now", "Win a holiday for two", "Subscribe for 1 euro", "Best mortgage rates today",
             "Sign up to our newsletter", "Download the app", "Follow us on social media"]
    return '<aside class="ad">%s</aside>' % "".join("<div><a href='/ad%d'>%s</a></div>" % (i, l) for i, l in enumerate(r.sample(lines, 4)))
def page(name, body, layout):
    with open(os.path.join(out, name), "w", encoding="utf-8") as f:
        f.write("<html><head><title>News</title></head><body>%s<main><article>%s</article></main>%s"
                "<footer>Copyright %d The News</footer></body></html>\n" % (nav(layout), body, ads(layout), 2000 + layout))
page("a1.html", article("01"), 1)
page("a2.html", article("01"), 2)             # the same article, another navigation and other ads
page("a3.html", article("01", change=5), 3)   # one sentence changed
page("b1.html", article("02"), 1)             # another article of the site, a1's template
page("b2.html", article("06"), 1)             # and another
