#!/bin/sh
# Builds the modern development set of TestModernSet (POLITECRAWL_TEXTEVAL_MODERN) in $1
# (default /tmp/textdata/modern) from a local git copy of a public repository:
#
#   GoogleTrends-2017: 180 pages of 2017 found by searching Google for that year's
#     Google Trends terms, each labelled by hand
#     (Leonhardt, Anand and Khosla, "Boilerplate Removal using a Neural Sequence Labeling
#     Model", WWW 2020 companion; the "google-trends-2017" set of the Webis web content
#     extraction benchmark, Bevendorff et al. 2023). Its authors' repository
#     github:mrjleo/boilernet (GPL-3.0) held it until they moved it to a download; the fork
#     github:sakata-yusuke-75/boilernet_japanese keeps that history: at be3a53e (their
#     commit of 2020-06-16) datasets/googletrends/raw_html/NAME.html is the page as
#     fetched with the annotators' __label="..." attribute on the elements they labelled
#     (title, subtitle, author, date, main, caption, image, video, comment, footer).
#
# The pages are copied as gt-NAME.html with the __label attributes taken out (the page
# as fetched, as near as can be had) and gt-NAME.labelled as they are; LoadModern takes
# the truth from the latter: the text of the elements labelled main, the article body
# (not the headline, byline, date, captions or comments), as the held-back benchmark's.
#
# The held-back benchmark's pages are excluded: any page whose sha256 (either form) is
# in $AEB_SHA (default /tmp/aeb-exclude/aeb.sha: the sha256 of each of its pages,
# uncompressed) or whose URL (its canonical or og:url link, normalised by norm() as
# newsset.sh does) is in $AEB_URL (default /tmp/aeb-exclude/aeb.url) is not copied.
#
# Usage: modernset.sh [OUT]; the repository's git directory is taken from $GT_GIT
# (default: the fetch tool's /work/.mirror copy).
set -eu
out=${1:-/tmp/textdata/modern}
aeb_sha=${AEB_SHA:-/tmp/aeb-exclude/aeb.sha}
aeb_url=${AEB_URL:-/tmp/aeb-exclude/aeb.url}
gt=${GT_GIT:-/work/.mirror/sakata-yusuke-75+boilernet_japanese/repo}
gt_commit=be3a53e59d2449a0220b9f63b204cba4c45da519

[ -s "$aeb_sha" ] && [ -s "$aeb_url" ] || { echo "no held-back hashes or URLs in $aeb_sha, $aeb_url" >&2; exit 1; }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
rm -rf "$out"
mkdir -p "$out"
git -C "$gt" archive "$gt_commit:datasets/googletrends/raw_html" | tar -x -C "$tmp"
git -C "$gt" show "$gt_commit:LICENSE" >"$out/LICENSE-boilernet.txt"

norm() { sed -e 's|^[a-z]*://||' -e 's|^www\.||' -e 's|[?#].*||' -e 's|/*$||' | tr 'A-Z' 'a-z'; }

: >"$out/urls.tsv"
: >"$out/excluded.txt"
n=0
for f in "$tmp"/*.html; do
	name=gt-$(basename "$f" .html)
	sed -e 's/ __label="[^"]*"//g' "$f" >"$tmp/page"
	url=$(grep -o -i -E '<link[^>]*rel="canonical"[^>]*href="[^"]*"|<link[^>]*href="[^"]*"[^>]*rel="canonical"|<meta[^>]*property="og:url"[^>]*content="[^"]*"' "$tmp/page" |
		head -n 1 | sed -E 's/.*(href|content)="([^"]*)".*/\2/') || true
	u=$(printf '%s\n' "$url" | norm)
	if grep -qx -e "$(sha256sum <"$f" | cut -d' ' -f1)" -e "$(sha256sum <"$tmp/page" | cut -d' ' -f1)" "$aeb_sha" ||
		{ [ -n "$url" ] && grep -qxF "$u" "$aeb_url"; }; then
		printf '%s\t%s\n' "$name" "$url" >>"$out/excluded.txt"
		continue
	fi
	cp "$tmp/page" "$out/$name.html"
	cp "$f" "$out/$name.labelled"
	[ -z "$url" ] || printf '%s\t%s\n' "$name" "$url" >>"$out/urls.tsv"
	n=$((n + 1))
done

echo "$n pages in $out; $(wc -l <"$out/excluded.txt") excluded as the held-back set's"
