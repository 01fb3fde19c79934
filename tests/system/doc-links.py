"""doc-links.py DIR: every relative link of every Markdown file under DIR
(an installed share/doc/topogen) names a file or folder that exists
there. Links in fenced code blocks and inline code are not links; URLs
(scheme:) and in-page anchors (#...) are not checked; a link's own
#anchor is dropped. Prints each broken link (file: target) and a count;
exit 1 when any is broken or no link was found."""
import os
import re
import sys

LINK = re.compile(r'\]\(<?([^)\s>]+)>?(?:\s+"[^"]*")?\)')


def links(path):
    with open(path, encoding="utf-8", errors="replace") as f:
        text = f.read()
    text = re.sub(r"```.*?```", "", text, flags=re.S)
    text = re.sub(r"`[^`\n]*`", "", text)
    for m in LINK.finditer(text):
        u = m.group(1)
        if re.match(r"[A-Za-z][A-Za-z0-9+.-]*:", u) or u.startswith("#"):
            continue
        yield u


def main():
    root = sys.argv[1]
    total, broken, files = 0, [], 0
    for d, _, names in os.walk(root):
        for name in sorted(names):
            if not name.endswith(".md"):
                continue
            files += 1
            f = os.path.join(d, name)
            for u in links(f):
                total += 1
                target = os.path.normpath(os.path.join(d, u.split("#")[0]))
                if not os.path.exists(target):
                    broken.append("%s: %s" % (os.path.relpath(f, root), u))
    for b in broken:
        print("broken link:", b)
    print("doc-links: %d relative links in %d Markdown files, %d broken" % (
        total, files, len(broken)))
    sys.exit(1 if broken or total == 0 else 0)


if __name__ == "__main__":
    main()
