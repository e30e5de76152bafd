#!/bin/sh
# Builds the WCXB development set of TestWCXBSet (POLITECRAWL_TEXTEVAL_WCXB) in $1
# (default /tmp/textdata/wcxb) from a local git copy of a public repository:
#
#   WCXB 1.0, the Web Content Extraction Benchmark (Murrough Foley, 2026; CC-BY-4.0):
#     github:Murrough-Foley/web-content-extraction-benchmark at c039d5e. Pages fetched in
#     2025 from 1,613 domains, seven page types (article, service, product, collection,
#     forum, listing, documentation), each with its main content as plain text, drafted by
#     a model and reviewed by people ("human-reviewed"; the repository's README). Only its
#     development split (1,497 pages) is used: its test split is left to its authors' use.
#
# Each page is written as wcxb-TYPE-ID.html (the HTML as fetched, decompressed) and
# wcxb-TYPE-ID.truth (ground_truth.main_content), so that TestWCXBSet reports each page
# type beside the whole; urls.tsv maps names to URLs. Pages its authors flagged, and the
# two without a main text, are left out.
#
# The held-back benchmark's pages are excluded by sha256 and URL as modernset.sh does
# ($AEB_SHA, $AEB_URL; default /tmp/aeb-exclude/aeb.{sha,url}).
#
# Usage: wcxbset.sh [OUT]; the repository's git directory is taken from $WCXB_GIT
# (default: the fetch tool's /work/.mirror copy).
set -eu
out=${1:-/tmp/textdata/wcxb}
aeb_sha=${AEB_SHA:-/tmp/aeb-exclude/aeb.sha}
aeb_url=${AEB_URL:-/tmp/aeb-exclude/aeb.url}
repo=${WCXB_GIT:-/work/.mirror/Murrough-Foley+web-content-extraction-benchmark/repo}
commit=c039d5ee9f5a3a984a0e167e63aacd04e76e78a9
[ -s "$aeb_sha" ] && [ -s "$aeb_url" ] || { echo "no held-back hashes or URLs in $aeb_sha, $aeb_url" >&2; exit 1; }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
rm -rf "$out"
mkdir -p "$out"
git -C "$repo" archive "$commit" dev LICENSE | tar -x -C "$tmp"
cp "$tmp/LICENSE" "$out/LICENSE-wcxb.txt"
for f in "$tmp"/dev/html/*.html.gz; do gzip -d "$f"; done
python3 - "$tmp/dev" "$out" "$aeb_sha" "$aeb_url" <<'PY'
import glob, hashlib, json, os, re, sys
dev, out, sha_file, url_file = sys.argv[1:]
shas = set(open(sha_file).read().split())
urls = set(open(url_file).read().split())
def norm(u):
    u = re.sub(r'^[a-z]*://', '', u)
    u = re.sub(r'^www\.', '', u)
    u = re.sub(r'[?#].*', '', u)
    return u.rstrip('/').lower()
kept = excluded = 0
with open(os.path.join(out, 'urls.tsv'), 'w') as tsv, open(os.path.join(out, 'excluded.txt'), 'w') as ex:
    for g in sorted(glob.glob(os.path.join(dev, 'ground-truth', '*.json'))):
        d = json.load(open(g))
        fid = os.path.basename(g)[:-len('.json')]
        kind = d['_internal']['page_type']['primary']
        truth = d['ground_truth'].get('main_content', '')
        if d.get('flagged') or not truth.strip():
            continue
        html = open(os.path.join(dev, 'html', fid + '.html'), 'rb').read()
        name = 'wcxb-%s-%s' % (kind, fid)
        if hashlib.sha256(html).hexdigest() in shas or norm(d.get('url', '')) in urls:
            ex.write('%s\t%s\n' % (name, d.get('url', '')))
            excluded += 1
            continue
        open(os.path.join(out, name + '.html'), 'wb').write(html)
        open(os.path.join(out, name + '.truth'), 'w').write(truth)
        tsv.write('%s\t%s\n' % (name, d.get('url', '')))
        kept += 1
print('%d pages in %s; %d excluded as the held-back set\'s' % (kept, out, excluded))
PY
