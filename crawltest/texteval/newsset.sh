#!/bin/sh
# Builds the news development set of TestNewsSet (POLITECRAWL_TEXTEVAL_NEWS) in $1
# (default /tmp/textdata/news) from local git copies of three public repositories:
#
#   L3S-GN1: 621 news articles of 408 sites, fetched from Google News in the first half of
#     2008 and labelled by human assessors (Kohlschuetter et al., WSDM 2010; research use
#     only, see Readme-L3S-GN1.txt), as github:geodrome/page-signal 186d815 holds it:
#     original/ID.html (the page as fetched) and annotated/ID.html (the page with every
#     text block in a <span class="x-nc-selN">; the truth is the blocks labelled 2, full
#     text: not the headline (1), captions and other supplemental text (3), related
#     content (4) or comments (5)); url-mapping.txt gives each page's URL.
#   Dragnet: 1,381 news articles and blog posts of 2012 (github:seomoz/dragnet_data
#     95559be, AGPL-3.0): Corrected/ID.html.corrected.txt is the content a person copied
#     from the page, comments after a line "!@#$%^&*()  COMMENTS" (the truth is what
#     precedes it). The repository's HTML archive is too large for the snapshot, so
#     the pages come from github:j-szulc/html-cleaning-dataset-merged 46e01a0
#     (dragnet_data/input/ID.html), whose gold files are checked to be byte for byte
#     Dragnet's Corrected files.
#
# The held-back benchmark's pages (scrapinghub/article-extraction-benchmark, in
# $AEB, default /tmp/textdata/aeb) are excluded: any page whose sha256 is that of one of
# its html/*.html.gz (uncompressed), or whose URL (GN1's mapping; a Dragnet page's
# canonical or og:url link) is one of its ground-truth.json URLs, is not copied. Only
# hashes and URLs of that set are computed here; its pages are not read otherwise.
#
# Usage: newsset.sh [OUT]; the repositories' git directories are taken from $GN1_GIT,
# $DRAGNET_GIT and $MERGED_GIT (defaults: the fetch tool's /work/.mirror copies).
set -eu
out=${1:-/tmp/textdata/news}
aeb=${AEB:-/tmp/textdata/aeb}
gn1=${GN1_GIT:-/work/.mirror/geodrome+page-signal/repo}
dragnet=${DRAGNET_GIT:-/work/.mirror/seomoz+dragnet_data/repo}
merged=${MERGED_GIT:-/work/.mirror/j-szulc+html-cleaning-dataset-merged/repo}
gn1_commit=186d8153b3d111f84865ddc180600a9cbe35ac7f
dragnet_commit=95559bee8812387d8e2cca2e8090004319ab9602
merged_commit=46e01a04b47051838a228bf23631430b2c9de375

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
rm -rf "$out"
mkdir -p "$out"

g=$tmp/L3S-GN1-20100130203947-00001
mkdir -p "$g/original" "$g/annotated"
# (By subtree and file: the repositories' largest files are absent from the snapshots.)
git -C "$gn1" archive "$gn1_commit:L3S-GN1-20100130203947-00001/original" | tar -x -C "$g/original"
git -C "$gn1" archive "$gn1_commit:L3S-GN1-20100130203947-00001/annotated" | tar -x -C "$g/annotated"
for f in url-mapping.txt Readme-L3S-GN1.txt; do
	git -C "$gn1" show "$gn1_commit:L3S-GN1-20100130203947-00001/$f" >"$g/$f"
done
git -C "$dragnet" show "$dragnet_commit:dragnet_Corrected.tar.gz" >"$tmp/dragnet_Corrected.tar.gz"
git -C "$dragnet" show "$dragnet_commit:LICENSE" >"$tmp/LICENSE"
tar -xzf "$tmp/dragnet_Corrected.tar.gz" -C "$tmp"
git -C "$merged" archive "$merged_commit" dragnet_data/input dragnet_data/GoldStandard | tar -x -C "$tmp"

# The held-back set's hashes and (normalised) URLs.
norm() { sed -e 's|^[a-z]*://||' -e 's|^www\.||' -e 's|[?#].*||' -e 's|/*$||' | tr 'A-Z' 'a-z'; }
for f in "$aeb"/html/*.html.gz; do gzip -dc "$f" | sha256sum | cut -d' ' -f1; done | sort -u >"$tmp/aeb.sha"
python3 -c 'import json,sys; [print(v["url"]) for v in json.load(open(sys.argv[1])).values()]' \
	"$aeb/ground-truth.json" | norm | sort -u >"$tmp/aeb.url"
[ -s "$tmp/aeb.sha" ] && [ -s "$tmp/aeb.url" ] || { echo "no held-back hashes or URLs in $aeb" >&2; exit 1; }

# keep NAME HTMLFILE URL: copies HTMLFILE to $out/NAME.html unless the held-back set has it.
: >"$out/urls.tsv"
: >"$out/excluded.txt"
keep() {
	sha=$(sha256sum "$2" | cut -d' ' -f1)
	u=$(printf '%s\n' "$3" | norm)
	if grep -qx "$sha" "$tmp/aeb.sha" || { [ -n "$3" ] && grep -qxF "$u" "$tmp/aeb.url"; }; then
		printf '%s\t%s\n' "$1" "$3" >>"$out/excluded.txt"
		return 1
	fi
	cp "$2" "$out/$1.html"
	[ -z "$3" ] || printf '%s\t%s\n' "$1" "$3" >>"$out/urls.tsv"
}

while IFS="$(printf '\t')" read -r uuid url; do
	id=${uuid#<urn:uuid:}
	id=${id%>}
	if keep "gn1-$id" "$g/original/$id.html" "$url"; then
		cp "$g/annotated/$id.html" "$out/gn1-$id.annotated"
	fi
done <"$g/url-mapping.txt"
cp "$g/Readme-L3S-GN1.txt" "$out/LICENSE-L3S-GN1.txt"

for c in "$tmp"/Corrected/*.html.corrected.txt; do
	id=$(basename "$c" .html.corrected.txt)
	cmp -s "$c" "$tmp/dragnet_data/GoldStandard/$id.txt" ||
		{ echo "dragnet $id: the merged copy's gold file is not Dragnet's" >&2; exit 1; }
	h=$tmp/dragnet_data/input/$id.html
	url=$(grep -o -i -E '<link[^>]*rel="canonical"[^>]*href="[^"]*"|<link[^>]*href="[^"]*"[^>]*rel="canonical"|<meta[^>]*property="og:url"[^>]*content="[^"]*"' "$h" |
		head -n 1 | sed -E 's/.*(href|content)="([^"]*)".*/\2/') || true
	if keep "dragnet-$id" "$h" "$url"; then
		cp "$c" "$out/dragnet-$id.corrected"
	fi
done
cp "$tmp/LICENSE" "$out/LICENSE-dragnet.txt"

echo "$(ls "$out"/*.html | wc -l) pages in $out; $(wc -l <"$out/excluded.txt") excluded as the held-back set's"
