package extract

import (
	"strconv"
	"strings"
	"testing"
)

// textPara is a paragraph of prose long enough to score, numbered so that each is
// found apart.
func textPara(n int) string {
	return "<p>Paragraph " + string(rune('A'+n)) + " of the article, long enough to be prose, with commas, clauses, and a full stop at its end.</p>\n"
}

// textTeaserLong is a paragraph of prose longer than a teaser's summary
// (textTeaserLine): an article's.
const textTeaserLong = "The meeting ran late into the evening, and the hall was full: residents, shop owners and the council's engineers argued over the cost of the bridge, the years it would take to build, the traffic it would bring and the trees it would cost the park by the river."

// textArticle is n paragraphs of prose.
func textArticle(n int) string {
	var b strings.Builder
	for i := range n {
		b.WriteString(textPara(i))
	}
	return b.String()
}

// textGallery is independent.co.uk's gallery legends: n photos, each with a title and
// a caption of prose.
func textGallery(n int) string {
	var b strings.Builder
	for i := range n {
		k := strconv.Itoa(i + 1)
		b.WriteString(`<li data-gallery-legend="` + k + `"><h2><span class="counter">` + k + `/` + strconv.Itoa(n) + `</span> Company news ` + k + `</h2>` +
			`<p>Revenues at the club dipped 8.8 per cent to £395.2m in the year to June, triggering a loss after broadcasting and sponsorship deals dried up, photo ` + k + `.</p><p class="credits">GETTY IMAGES</p></li>`)
	}
	return b.String()
}

// textFeedItems is n copies of item, each with its number for "%".
func textFeedItems(n int, item string) string {
	var b strings.Builder
	for i := range n {
		b.WriteString(strings.ReplaceAll(item, "%", strconv.Itoa(i+1)))
	}
	return b.String()
}

// TestTextShapes checks the main text of page shapes taken from real sites: what it
// must hold (with, each a substring) and what it must not (without).
func TestTextShapes(t *testing.T) {
	tests := []struct {
		name    string
		title   string // the page's <title>
		html    string
		with    []string
		without []string
	}{{
		// WordPress block themes give the page's <main> the id its skip link leads to
		// ("wp--skip-link--target"); CIO Dive's wraps all its content in
		// id="skip-link-target": the place a skip link leads to is the content.
		name: "skip link's target",
		html: `<body><a class="skip-link screen-reader-text" href="#skip-link-target">Skip to content</a>
<nav><ul>` + textFeedItems(12, `<li><a href="/topic/%">Topic number % of the site's many sections</a></li>`) + `</ul></nav>
<div class="page-inner-wrapper" id="skip-link-target"><section class="main-content"><ul class="feed">` +
			textFeedItems(4, `<li class="feed__item"><h3><a href="/news/%">House passes bill %</a></h3><p class="feed__description">The act aims to cut red tape in order to meet soaring energy demand, story %.</p></li>`) +
			`</ul></section></div>
<footer>Contact us</footer></body>`,
		with:    []string{"energy demand, story 1", "energy demand, story 4"},
		without: []string{"Skip to content", "Topic number", "Contact us"},
	}, {
		// zeit.de (an article for subscribers, its text cut short): the kicker and the
		// headline are spans of the <h1> with a screen-reader-only ": " between them
		// and no white space.
		name: "zeit kicker and headline",
		html: `<main class="main main--article" id="main"><article class="article article--padded article--article" id="js-article">
<header class="article-header" data-ct-area="articleheader">
<div class="article__item article__item--has-badge article__item--wide">
<h1 class="article-heading">
<span class="article-heading__kicker">Klimaschutz</span><span class="visually-hidden">: </span><span class="article-heading__title">Bohren, bis es heiß wird</span>
</h1></div>
<div class="article__item"><div class="article__intro"><div class="summary">Weltweit finanzieren Banken und Investoren Unternehmungen, die dem Klima schaden.</div></div></div>
</header>
<div class="article-body article-body--article"><div class="article-page">` + textArticle(1) + `</div></div></article></main>`,
		with:    []string{"Klimaschutz Bohren, bis es heiß wird", "Paragraph A"},
		without: []string{"KlimaschutzBohren"},
	}, {
		// A recipe card's labels and values, spans of different classes side by side.
		name: "label and value spans",
		html: `<article>` + textArticle(3) + `<p class="recipe-details"><span class="recipe-label">Course: </span><span class="recipe-value">Main</span><span class="recipe-label">Cuisine: </span><span class="recipe-value">Chinese</span></p></article>`,
		with: []string{"Course: Main Cuisine: Chinese"},
	}, {
		// Pieces of one word in spans of one class, a drop cap, and <em>s that split a
		// word stay one word.
		name: "one word in spans",
		html: `<article>` + textArticle(3) + `<p>The purchase of national treasures at the <span class="s5">Ch</span><span class="s5">â</span><span class="s5">teau de Versailles</span> went on for years and years, and more.</p>
<h2><span class="dropcap">U</span><span>n terrain propice</span></h2><p>Luca Guadagnino’s film <em>Call Me</em> <em>b</em><em>y Your Name</em> adapts the novel of the same name.</p></article>`,
		with: []string{"Château de Versailles", "Un terrain propice", "Call Me by Your Name"},
	}, {
		// yahoo.co.jp saved with scripting on: the <noscript> holds its markup as text,
		// one long word that outscored the article.
		name: "noscript markup as text",
		html: `<div id="main"><noscript>&lt;div style="position:absolute;"&gt;&lt;img width=1 height=1 alt="" src="http://b5.yahoo.co.jp/b?P=oI9TLjE4Mi66RLpAorxEdAVuMTE4LgAAAAA2TzUA&amp;T=16mddo9qo%2fX%3d1489053188%2fE%3d2078709551%2fR%3djp_hdln_te%2fK%3d5%2fV%3d2.1%2fW%3dH%2fY%3djp%2fF%3d2379965117%2fH%3dbWgtbG9naW4tc3JjPSJ5biIgcG9wc2VhcmNoLXNlcnZpY2UtY29kZT0ibndzIiBhZGN2ZXI9Ni44LjE-%2fQ%3d-1%2fS%3d1%2fJ%3d58C12604"&gt;&lt;/div&gt;</noscript>
<div class="ynDetail"><p class="ynDetailText">トレンドマイクロは3月9日、Wi-Fi利用時の通信を暗号化し保護するスマホ・タブレット向けのセキュリティアプリの発売を開始すると発表した。</p></div></div>`,
		with:    []string{"トレンドマイクロは3月9日"},
		without: []string{"position:absolute", "yahoo.co.jp"},
	}, {
		// schneier.com (Movable Type): the comment form after the post, in the same
		// block, its labels and notes lines of text; a form to write in is not the
		// content.
		name:    "comment form after the post",
		html:    `<div class="entry">` + textArticle(3) + `<h3>Post a comment</h3><form method="post" action="/cgi-bin/mt/mt-comments.cgi"><p>Name:<br><input id="author" name="author"></p><p>Email Address:<br><input id="email" name="email"></p><p>E-mail is optional and will not be displayed on the site, which keeps your address private from spammers and others.</p><p>Comments: (Allowed HTML: a, em, cite, i, strong, b, sub, sup, ul, ol, li, blockquote, pre)<br><textarea id="text" name="text"></textarea></p><input type="submit" value="Post"></form></div>`,
		with:    []string{"Paragraph A", "Paragraph C"},
		without: []string{"Email Address", "E-mail is optional", "Allowed HTML"},
	}, {
		// An ASP.NET page: the whole page is one <form>, a box to comment in among
		// the rest; the form is the page, not a comment form.
		name: "page in a form",
		html: `<form method="post" action="./article.aspx" id="aspnetForm"><div class="story">` + textArticle(3) + `</div><div class="reply"><textarea name="comment"></textarea></div></form>`,
		with: []string{"Paragraph A", "Paragraph C"},
	}, {
		// wsj.com (2012): the article's opening twice, for two layouts, the second in a
		// block of class "hidden"; Tailwind's "hidden md:block" is shown on wide screens.
		name: "copy of class hidden",
		html: `<article><div class="article story artSnippetTop recipeA" id="recipeAText">` + textArticle(2) + `</div><div class="article story artSnippetTop recipeC hidden" id="recipeCText"><p>Paragraph A again, the same words for a narrower layout of the same page, hidden here.</p><p>Paragraph B again, the same words for a narrower layout of the same page, hidden here.</p><p>Paragraph C again, the same words for a narrower layout of the same page, hidden here.</p><p>Paragraph D again, the same words for a narrower layout of the same page, hidden here.</p><p>Paragraph E again, the same words for a narrower layout of the same page, hidden here.</p></div>` +
			`<div class="hidden md:block">` + textPara(2) + textPara(3) + textPara(4) + textPara(5) + `</div></article>`,
		with:    []string{"Paragraph A", "Paragraph B", "Paragraph C", "Paragraph F"},
		without: []string{"A again"},
	}, {
		// trekmovie.com: a thread of readers' comments, most of the page's text, in
		// <div id="comments"> beside the post; it goes all the same, since the page
		// has an article's prose outside it. A post whose classes name it a post and
		// a term with "comments" in it (cubadebate.cu) stays.
		name: "comments longer than the article",
		html: `<div id="content"><div class="storybody">` + textArticle(7) + `</div><div id="comments"><dl>` +
			strings.Repeat(`<dt>1. Reader - October 26, 2012</dt><dd><p>Why? It is one of the least interesting bridges, in fact down right dull and boring, and a smoking lounge at best.</p></dd>`, 14) + `</dl></div></div>`,
		with:    []string{"Paragraph A", "Paragraph G"},
		without: []string{"least interesting"},
	}, {
		// An opinion piece's heading named for the commentary it opens is not the
		// heading of readers' comments: the text goes on after it.
		name: "a heading named commentary",
		html: `<article>` + textArticle(3) + `<h2 class="commentary-heading" id="commentary">Our view</h2>` + textPara(3) + textPara(4) + `</article>`,
		with: []string{"Paragraph A", "Paragraph D", "Paragraph E"},
	}, {
		name: "post classes naming comments",
		html: `<section class="post type-post hentry category-noticias internet-estallido-comentarios" id="content">` + textArticle(12) + `</section><div class="more">` + textArticle(7) + `</div>`,
		with: []string{"Paragraph A", "Paragraph L"},
	}, {
		// independent.co.uk: a gallery of captioned photos inside the article's body
		// (itemprop=articleBody) scores higher than the body's own paragraphs; the
		// article is the body, and the gallery's legends, a list of cards each under
		// its heading, are not its text.
		name:    "gallery inside the article body",
		html:    `<article class="full-article"><div class="article-wrapper clearfix"><div class="main-content-column"><div class="text-wrapper" itemprop="articleBody">` + textArticle(6) + `<div class="dnd-widget-wrapper context-full type-gallery"><div class="dnd-atom-rendered"><div class="full-gallery"><div class="scroller"><ul class="slides"><li>Photo</li></ul><span class="legend-text">Previous photo, next photo</span></div><ul class="legends">` + textGallery(50) + `</ul></div></div></div>` + textPara(6) + `</div></div></div></article>`,
		with:    []string{"Paragraph A", "Paragraph G"},
		without: []string{"Company news", "Revenues at the club"},
	}, {
		// huffingtonpost.com: a slideshow of headed slides in the article's body, after
		// its paragraphs, is not its text.
		name: "slideshow after the article",
		html: `<div class="articleBody" itemprop="articleBody">` + textArticle(7) + `<div class="hp-slideshow-wrapper"><ul class="hp-slideshow"><li><h4>Death Panels</h4><p>The only thing that perhaps matched the vastness of the spread of the lie was its predictability, a slide of prose.</p></li>` +
			`<li><h4>Healthcare Is Already The Best</h4><p>One of the more positive sounding admonitions from opponents was that the country had the best care in the world.</p></li>` +
			`<li><h4>Jobs Will Be Lost</h4><p>Another of the claims made at the time, and repeated since, was that the law would cost a great many jobs everywhere.</p></li></ul></div></div>`,
		with:    []string{"Paragraph A", "Paragraph G"},
		without: []string{"Death Panels", "vastness", "Jobs Will Be Lost"},
	}, {
		// A guide's sections in a list of headed items between its paragraphs (a
		// WordPress glossary's "4 Major Types of Mobile Apps") are the article, however
		// much prose the article holds besides; a list of other stories' linked
		// headlines among the paragraphs is not.
		name: "headed list between the paragraphs",
		html: `<article class="post type-glossary"><div class="entry-content">` + textArticle(6) + `<p>Here are the major types of apps.</p><ol class="list"><li><h3>Native Apps</h3><p>Native apps are built for one operating system, such as iOS or Android, and reach the device's camera.</p></li>` +
			`<li><h3>Web Apps</h3><p>Web apps run in the mobile browser at once, with nothing to install, and are easy to reach from anywhere.</p></li>` +
			`<li><h3>Hybrid Apps</h3><p>Hybrid apps combine the best features of both, built with web technologies yet installed from a store.</p></li></ol>` +
			textPara(6) + `<ul class="more"><li><h3><a href="/a">First other story</a></h3><p>A line of its teaser.</p></li><li><h3><a href="/b">Second other story</a></h3><p>A line of its teaser.</p></li>` +
			`<li><h3><a href="/c">Third other story</a></h3><p>A line of its teaser.</p></li></ul>` + textPara(7) + `</div></article>`,
		with:    []string{"Paragraph A", "Native Apps\nNative apps are built", "Hybrid Apps", "Paragraph H"},
		without: []string{"other story", "teaser"},
	}, {
		// The same list as the body of a section under its own heading, between
		// the article's paragraphs (tp-link.com's guide: <section><h2>Features of a Whole Home
		// WiFi System</h2><ul><li><img><h3>...</h3><p>...</p></li>...</ul></section>).
		name: "headed list as a section's body",
		html: `<div class="content">` + textArticle(4) + `<section class="d"><h2>Features of a Mesh System</h2><ul><li><img src="d1.png" alt="Mesh range"><h3>One Network for Your Home</h3><p>Mesh technology lets you stay online even if one of your nodes fails, on one network upstairs and down.</p></li>` +
			`<li><img src="d2.png" alt="Two routers"><h3>Stable Long-Range Connection</h3><p>Each node piggybacks off the signal of the others, so the connection holds at the top of the stairs.</p></li>` +
			`<li><img src="d3.png" alt="The app"><h3>Easy Setup and Management</h3><p>Most mesh routers come with an app to set the network up, check its speeds and enact parental controls.</p></li></ul></section>` +
			textPara(4) + textPara(5) + textPara(6) + `</div>`,
		with: []string{"Paragraph A", "One Network for Your Home\nMesh technology", "Easy Setup and Management", "Paragraph G"},
	}, {
		// A highlighter's tokens in a block of code are named for what they are in the
		// code (highlight.js's hljs-comment, Prism's "token comment"), not readers'
		// comments: the code's comments stay.
		name: "highlighted comments in code",
		html: `<article class="post">` + textArticle(3) + `<pre><code class="language-bash hljs"><span class="hljs-comment"># initialize git</span>
git init
<span class="hljs-comment"># clone repo</span>
git clone &lt;repo url&gt;</code></pre><pre class="language-js"><code class="language-js"><span class="token comment">// no boolean coercion</span>
<span class="token keyword">if</span> (x) {}</code></pre>` + textPara(3) + `</article>`,
		with: []string{"# initialize git\ngit init\n# clone repo", "// no boolean coercion\nif (x) {}", "Paragraph D"},
	}, {
		// A list whose items are headed stays when it is the article, rather than a
		// part beside 500 characters of prose.
		name: "headed list as the article",
		html: `<div class="listicle"><div class="body"><p>Three things to pack, in short.</p><ol><li><h3>A towel</h3><p>The most useful thing a traveller can carry, for drying, for warmth, and for signalling, as every guide says.</p></li>` +
			`<li><h3>A map</h3><p>Paper does not run out of battery, and it shows the whole valley at once, with its paths, its huts and its rivers.</p></li>` +
			`<li><h3>A lamp</h3><p>The days are short in the mountains in autumn, and the last kilometre home is the darkest one of the whole walk.</p></li></ol></div></div>`,
		with: []string{"A towel\nThe most useful", "A lamp"},
	}, {
		// The headline that opens the article repeats the page's title, which
		// Page.Title holds; a subhead further on stays.
		name:    "headline repeating the title",
		title:   "Obama admits US gun laws are his 'biggest frustration' - BBC News",
		html:    `<div class="story-body"><h1 class="story-body__h1">Obama admits US gun laws are his 'biggest frustration'</h1>` + textArticle(3) + `<h2>Obama admits more</h2>` + textPara(3) + `</div>`,
		with:    []string{"Paragraph A", "Obama admits more\nParagraph D"},
		without: []string{"biggest frustration"},
	}, {
		// A headline set in a <div> or a <p>, not a heading (Xinhua, a news site of 2008),
		// goes as an <h1> does when it opens the text and repeats the title; a short first
		// paragraph that shares only some of its words stays.
		name:    "headline in a div repeating the title",
		title:   "Polish Parliament Confirms Government of New Prime Minister_English_Xinhua",
		html:    `<div class="story"><div class="hl">Polish Parliament Confirms Government of New Prime Minister</div>` + textArticle(3) + `</div>`,
		with:    []string{"Paragraph A", "Paragraph C"},
		without: []string{"Polish Parliament"},
	}, {
		// userpilot.com, cedardb.com (2025): the date and the section's name are
		// written above the headline, inside the article's block; the headline goes all
		// the same (the date line, an edge, goes by its own rule). A heading that
		// repeats the title after a paragraph of prose, or under more than a few short
		// lines, stays.
		name:  "headline under a date line repeating the title",
		title: "Future-Proof Your SaaS: 15 Top Data Analytics Trends for 2025 and Beyond",
		html: `<div class="post"><div class="date-published">October 26, 2025</div><div class="category"><a href="/blog/category/ux-analytics/">UX Analytics</a></div>` +
			`<div class="title"><h1>Future-Proof Your SaaS: 15 Top Data Analytics Trends for 2025 and Beyond</h1></div>` + textArticle(3) + `</div>`,
		with:    []string{"Paragraph A", "Paragraph C"},
		without: []string{"Future-Proof"},
	}, {
		name:  "heading repeating the title after prose",
		title: "Data Analytics Trends for 2025",
		html:  `<div class="post">` + textArticle(2) + `<h2>Data Analytics Trends for 2025</h2>` + textArticle(2) + `</div>`,
		with:  []string{"its end.\nData Analytics Trends for 2025\nParagraph A"},
	}, {
		name:  "heading repeating the title under a box of lines",
		title: "Data Analytics Trends for 2025",
		html: `<div class="post"><ul><li>Our trends report for the year, with all of its chapters</li><li>Our trends report for the year before it, with its chapters</li><li>Our trends report for the years before those two</li></ul>` +
			`<h1>Data Analytics Trends for 2025</h1>` + textArticle(3) + `</div>`,
		with: []string{"Data Analytics Trends for 2025\nParagraph A"},
	}, {
		name:  "first paragraph sharing words with the title",
		title: "Obama wins Iowa - Example News",
		html:  `<div class="story"><p>Obama wins Iowa caucuses by a wide margin over Clinton.</p>` + textArticle(3) + `</div>`,
		with:  []string{"Obama wins Iowa caucuses", "Paragraph C"},
	}, {
		// The edges of an article: the picture over it, a byline and a date line before
		// the first paragraph of prose, calls to action after the last, go; the same
		// between paragraphs stay, and so does a word that only holds a phrase
		// ("anzeigen" is not "Anzeige"); a pointer to another article goes wherever
		// it is.
		name: "calls to action and dates at the edges",
		html: `<div class="article"><figure><img src="a.jpg"><figcaption>The bridge at dawn, seen from the old market on the river's north bank. Photo: A. Photographer</figcaption></figure><p>By Jane Reporter</p><div class="meta"><time datetime="2020-04-03">3. April 2020</time>, 12:35</div>` + textPara(0) + `<p>Wir teilen diese Meinung nicht.</p><p>Lesen Sie auch: <a href="/x">Warum die Brücke so lange gedauert hat, eine Chronik</a></p>` + textPara(1) + `<figure><img src="b.jpg"><figcaption>The bridge at night.</figcaption></figure>` + textPara(2) +
			`<p>Bild anzeigen</p><div class="cta">Jetzt den Newsletter abonnieren!</div><p>Share this article</p><p><span>Anzeige</span></p></div>`,
		with:    []string{"Paragraph A", "Wir teilen diese Meinung nicht.", "Paragraph C", "Bild anzeigen"},
		without: []string{"Lesen Sie auch", "The bridge at dawn", "Jane Reporter", "April 2020", "Newsletter", "Share this", "Anzeige", "The bridge at night."},
	}, {
		// An article's figure captions go, between its paragraphs too: they describe a
		// picture the text does not hold. A gallery whose captions are its prose keeps
		// them: they are the content.
		name:    "figure captions",
		html:    `<article>` + textArticle(5) + `<figure><img src="a.jpg"><figcaption><p>Jamaica's Usain Bolt, left, crosses the finish line ahead of Yohan Blake to win gold in the men's 100-meter final, Sunday, Aug. 5, 2012.</p></figcaption></figure>` + textPara(6) + `</article>`,
		with:    []string{"Paragraph A", "Paragraph G"},
		without: []string{"Usain Bolt"},
	}, {
		name: "gallery of captioned figures",
		html: `<div class="gallery"><h1>The bridge through the year</h1>` + textFeedItems(6, `<figure><img src="%.jpg"><figcaption><p>Photo %: the bridge at dawn in its month, seen from the old market on the river's north bank, with the fog rising off the water and the first trams crossing it.</p></figcaption></figure>`) + `</div>`,
		with: []string{"Photo 1: the bridge", "Photo 6: the bridge"},
	}, {
		// A Next.js page streamed by React: the frame holds a loading skeleton and a
		// <template id="B:0"> placeholder; the article comes late in <div hidden
		// id="S:0">, which the page's script moves into place and shows. Another
		// hidden block stays hidden.
		name: "React streamed boundary",
		html: `<main><div class="skeleton"><p>Loading paragraph...</p><p>Loading image...</p></div><template id="B:0"></template></main><footer>© 2025 Example Inc.</footer>` +
			`<div hidden id="S:0"><article><h1>Best practices for queries</h1>` + textArticle(4) + `</article></div><div hidden><p>Your session has expired, please sign in again to go on with what you were doing.</p></div>` +
			`<script>$RC("B:0","S:0")</script>`,
		with:    []string{"Paragraph A", "Paragraph D"},
		without: []string{"Loading paragraph", "session has expired"},
	}, {
		// geeksforgeeks.org (2025): the whole page is in a <div style="visibility:hidden">
		// that its script shows once its styles are in, against a flash of unstyled
		// content: with nothing else to read, what it holds is read as its readers see
		// it. The menu it hides stays out as any menu does.
		name: "page hidden until its script shows it",
		html: `<div id="__next"><div style="visibility:hidden;background-color:white"><nav><a href="/">Home</a> <a href="/ml">Machine Learning</a></nav>` +
			`<div class="article"><h1>Machine Learning Tutorial</h1>` + textArticle(3) + `</div></div></div>`,
		with:    []string{"Paragraph A", "Paragraph C"},
		without: []string{"Home"},
	}, {
		// A stream of stories that loads the next article under the first (an
		// infinite scroll): the article is the one whose headline the title repeats,
		// not the longest of the stream.
		name:  "stream of articles under the one the title names",
		title: "Bees are back in town | The Paper",
		html: `<div id="stream"><div class="story"><h1>Bees are back in town</h1><div class="byline">By Jane Doe</div><div class="body">` + textArticle(4) + `</div></div>` +
			`<div class="story"><h2>Wasps leave the city for the winter</h2><div class="byline">By John Roe</div><div class="body">` + textArticle(4) + `<p>One more paragraph of the second story, as long as the others are, with its commas and its full stop.</p></div></div></div>`,
		with:    []string{"Paragraph A", "Paragraph D"},
		without: []string{"Wasps", "One more paragraph"},
	}, {
		// The article is the best scored and has its headline; a box of other stories
		// after it, one of whose titles repeats the page's, is not taken for it.
		name:  "article beside a box naming it",
		title: "Removing a Firefox add-on - The Paper",
		html: `<div class="post"><h1>Removing a Firefox add-on</h1><div class="entry">` + textArticle(4) + `</div></div>` +
			`<div class="box" id="recent-posts"><h2>Recent posts</h2><ul>` + textFeedItems(4, `<li><h2><a href="/p/%">Removing a Firefox add-on, part %</a></h2><p>A short summary of the post number %, long enough to be read as prose, with commas, and a stop.</p></li>`) + `</ul></div>`,
		with:    []string{"Paragraph A", "Paragraph D"},
		without: []string{"short summary"},
	}, {
		// A page with text of its own: what it hides stays hidden (a dialog asking to
		// sign in, a second language's copy).
		name:    "hidden block beside a shown article",
		html:    `<div class="article">` + textArticle(3) + `</div><div style="display: none"><p>Your session has expired, please sign in again to go on with what you were doing there.</p></div>`,
		with:    []string{"Paragraph A", "Paragraph C"},
		without: []string{"session has expired"},
	}, {
		// A shop's page whose only text is what its cart drawer hides (its products come
		// from a script): no prose, so no text, rather than the drawer's lines.
		name:    "hidden cart on a page without text",
		html:    `<div id="app"></div><div class="cart-drawer" style="display:none">` + textFeedItems(8, `<div class="item"><a href="/p/%">Ridge Wallet %</a><span>$76</span><span>Style</span></div>`) + `</div>`,
		without: []string{"Ridge Wallet", "$76"},
	}, {
		// A layout table (an AP story on a station's site, 2007): the cell that holds
		// the story's paragraphs is no paragraph itself, so the copyright line and the
		// date line at its edges are the edges of the content.
		name: "edges inside a layout table cell",
		html: `<table><tr><td><table><tr><td><span id="storyText"><p>Posted: 6:12 PM Dec 30, 2007 Last Updated: 6:10 PM Dec 31, 2007</p>` + textArticle(3) +
			`<p>Both teams finish 7-and-9.</p><p>(Copyright 2007 by The Associated Press. All Rights Reserved.)</p></span></td></tr></table></td></tr></table>`,
		with:    []string{"Paragraph A", "Paragraph C", "Both teams finish"},
		without: []string{"Associated Press", "Last Updated"},
	}, {
		// upi.com (2008): the story is one block of lines separated by <br><br>, its
		// last line the agency's copyright; a last line that is the story's stays.
		name: "copyright line ending a block of lines",
		html: `<div align="justify"><font size="2">LONDON, Jan. 10 British actor and Monty Python icon John Cleese is reportedly splitting up with his third wife, to whom he was married for 19 years.<br><br>` +
			`The source emphasized there was no third party involved in their decision to part, and that both were sad but resolved about it.<br><br>The couple have no children together.<br><br>Copyright 2008 by UPI</font></div>`,
		with:    []string{"John Cleese", "The couple have no children together."},
		without: []string{"UPI"},
	}, {
		// presstv.ir (2008): a layout table's cell holds the headline and the date line
		// over the story, separated by a <br>, and the story is a cell of lines too
		// (with a table of its photograph): the date line goes as a block of its own at
		// the edge would, the headline stays.
		name: "date line in a block of lines over the article",
		html: `<table><tr><td><b>'No exceptions to settlement freeze'</b><br>Sat, 29 Dec 2007 17:50:54</td></tr>` +
			`<tr><td><table><tr><td><img src="homa.jpg"><br>Israeli Har Homa settlement in the West Bank</td></tr></table>The Palestinian National Authority will not accept any exceptions to Israeli settlement freeze in the West Bank, a top official says.<br><br>` +
			`"The obligation before Israel is that the settlement activities, including the natural growth, come to a halt," the negotiator said on Saturday.<br><br>` +
			`The Palestinians were angered by Israeli tenders to expand the settlement in the disputed east of the city, officials said.<br><br>` +
			`The two sides reopened their peace talks on Dec. 12 as a result of the conference but have failed to yield any tangible progress.</td></tr></table>`,
		with:    []string{"No exceptions to settlement freeze", "The Palestinian National", "disputed east"},
		without: []string{"29 Dec 2007"},
	}, {
		// A story whose first paragraph is a run of lines: the byline and the date
		// line before its first line of prose go.
		name: "byline and date opening a paragraph of lines",
		html: `<div class="story"><p>By LESLIE BREFELD<br>January 17, 2008<br>` +
			`WASHINGTON -- The long rumoured merger of the two companies has been called off after months of talks, people close to both said on Thursday.<br><br>` +
			`Neither company would comment on the rumour, which came from a source close to the talks, and shares of both fell in early trading.</p>` + textArticle(2) + `</div>`,
		with:    []string{"WASHINGTON -- The long", "Neither company", "Paragraph B"},
		without: []string{"LESLIE", "January 17"},
	}, {
		// answers.netlify.com: a post's paragraph of log lines, each with a time, and
		// no line of prose after them: they are the post's, not a date line.
		name: "log lines in a paragraph of lines",
		html: `<div class="post"><p>6:58:36 AM: Deploy site<br>6:58:36 AM: Starting to deploy site from 'public'<br>6:58:37 AM: Execution cancelled</p>` + textArticle(2) + `</div>`,
		with: []string{"6:58:36 AM: Deploy site", "Execution cancelled"},
	}, {
		// Preformatted text over the article keeps its lines, dates or not.
		name: "preformatted lines over the article",
		html: `<div class="doc"><pre>Network Working Group
Expires: 18 June 2015
Status of this memo</pre>` + textArticle(3) + `</div>`,
		with: []string{"Expires: 18 June 2015"},
	}, {
		// A local TV station's story (2008): no paragraph at all, the story's lines
		// separated by empty <p></p>s; the date lines over it go as they do over
		// paragraphs.
		name: "date lines over a story of runs between empty paragraphs",
		html: `<div class="Story"><h1 class="Headline">Aviation Deaths Down 25%, Survey Finds</h1><p><div class="posted">POSTED: 8:21 am EST January 2, 2008</div><div class="updated">UPDATED: 8:27 am EST January 2, 2008</div></p>` +
			`<div class="StoryBody"><b>GENEVA -- </b>Last year was one of the safest in aviation history, with the lowest number of crashes in 44 years, an independent watchdog said Wednesday.<p></p>` +
			`There were 136 serious accidents in 2007, down from 164 crashes the previous year, the Aircraft Crashes Record Office said.<p></p>` +
			`The figure is the lowest since 1963, although some accidents were still under review by insurance companies, the office said in a statement.</div></div>`,
		with:    []string{"GENEVA -- Last year", "The figure is the lowest"},
		without: []string{"POSTED", "UPDATED"},
	}, {
		// Shopping guides and blogs open with a note that their links earn the site a
		// commission, as a paragraph of prose or a box of its own, and close with
		// Amazon's; a paragraph between that says a link is an affiliate's is the
		// article's.
		name: "affiliate disclosures over and under the article",
		html: `<div class="main-wrap"><div class="disclosure-box"><span>If you buy through our links, we may earn an affiliate commission. <a href="/about">Learn more.</a></span></div>` +
			`<p>This article contains affiliate links that may earn us a commission at no extra cost to you. Read our Disclosure for more. Thanks for your support!</p>` +
			textPara(0) + `<p>I use this liquid castile soap or this natural dish soap, just in case you were wondering (both are <a href="/soap">affiliate links</a>).</p>` + textArticle(3)[len(textPara(0)):] +
			`<p>As an Amazon Associate, I earn from qualifying purchases.</p></div>`,
		with:    []string{"Paragraph A", "castile soap", "Paragraph C"},
		without: []string{"Learn more", "This article contains", "Amazon Associate"},
	}, {
		// theguardian.com: a note over an old article says how old it is.
		name:    "age notice over the article",
		html:    `<article><p>This article is more than 3 years old, and some of what it says may have changed since it was written.</p>` + textArticle(3) + `</article>`,
		with:    []string{"Paragraph A", "Paragraph C"},
		without: []string{"3 years old"},
	}, {
		// WordPress's default theme closes a post with a paragraph of its metadata,
		// long enough to be prose; nytimes.com closes an article with its print
		// edition's page; both go as the last paragraphs' calls to action do.
		name: "post metadata in the last paragraphs",
		html: `<div class="post" id="post-3658"><div class="entrytext">` + textArticle(4) + `<p class="postmetadata alt"><small>This entry was posted on Saturday, August 4th, 2012 at 9:15 am and is filed under Neat Stuff, Robot Art. You can follow any responses to this entry through the RSS 2.0 feed.</small></p>` +
			`<h6 class="metaFootnote">A version of this article appeared in print on 11/06/2012, on page B8 of the NewYork edition with the headline: Robots That Paint.</h6></div></div>`,
		with:    []string{"Paragraph D"},
		without: []string{"This entry was posted", "appeared in print"},
	}, {
		// A newspaper's services after the story (2008): a list too long for the
		// edges' short blocks, not prose, that asks the reader to subscribe; a list
		// of the story's own at its end stays.
		name: "list of services after the story",
		html: `<div class="story">` + textArticle(3) + `<ul><li>Wheat, up 3 per cent on the week</li><li>Corn, down 1 per cent on the week</li></ul>` +
			`<ul><li>--Advertise with us</li><li>--Place a classified ad</li><li>--Customer service</li><li>--Subscribe</li><li>--Subscriber rewards</li><li>--Staff directory</li><li>--Newspapers in education</li><li>--Tour the plant</li></ul></div>`,
		with:    []string{"Paragraph C", "Wheat, up 3 per cent"},
		without: []string{"Advertise with us", "Tour the plant"},
	}, {
		// The short blocks under a post: its category, the way back to the top, a
		// call to follow the paper in the last paragraphs' narrower words ("Nos siga
		// no", campograndenews.com.br), to send a tip or rate the story; a category
		// named in the story stays.
		name: "category, back to top and follow at the edge",
		html: `<div class="entry">` + textArticle(3) + `<p>The category: small cars, under four metres, sold in Europe.</p>` + textPara(3) + `<div>Kategorie: News, open3</div><p>Zurück nach oben</p><div>Nos siga no <a href="/x">X</a></div>` +
			`<p>Got a news tip or want to contact us directly? Email news@example.com</p><div>Valora esta noticia</div></div>`,
		with:    []string{"Paragraph D", "The category: small cars"},
		without: []string{"Kategorie", "Zurück nach oben", "Nos siga", "news tip", "Valora"},
	}, {
		// Date lines over and under a story (AP on a portal, 2008; a German paper):
		// a date or a time with a few words beside it goes at the edges; a tour's
		// dates in a list, a phone number and a sentence with a year stay.
		name: "date lines at the edges",
		html: `<div class="story"><div class="dateline">Associated Press - January 14, 2008 4:44 AM ET</div>` + textArticle(3) +
			`<p>Call the box office at +81 158-23-2012.</p><ul><li>Chicago, IL June 9, 2018</li><li>Atlanta, GA June 16, 2018</li></ul><p>The Alouettes finished with an 8-10 record in 2007.</p><div>Stand: 28.04.2020 18:00 Uhr</div><div>Last Update: 1/14 7:52 pm</div></div>`,
		with:    []string{"Paragraph A", "Paragraph C", "+81 158-23-2012", "Chicago, IL June 9, 2018", "8-10 record in 2007"},
		without: []string{"Associated Press", "Stand:", "Last Update"},
	}, {
		// tagesspiegel.de: the lead of the article sits apart from the body that wins; the <article> around both is the content, up to the
		// end of the body (what follows it in the article is not).
		name:  "lead before the body",
		title: "Abstandsregeln im Büro - Politik - Tagesspiegel",
		html: `<article class="ts-article"><div class="ts-article-top"><h1>Abstandsregeln im Büro</h1><p class="ts-intro">Die Ideen reichen vom Spuckschutz bis zur Kontrolle der Abstände, und die Firmen suchen noch nach dem richtigen Weg dorthin.</p></div>` +
			`<div class="ts-article-main"><p class="ts-kicker">Politik</p><div class="ts-article-body">` + textArticle(10) + `</div></div><div class="ts-article-info"><p>Die Redaktion prüft jeden Hinweis, den Leserinnen und Leser ihr schicken, und antwortet binnen einer Woche darauf.</p></div></article>`,
		with:    []string{"Die Ideen reichen vom Spuckschutz", "Paragraph A", "Paragraph J"},
		without: []string{"Die Redaktion prüft"},
	}, {
		// qq.com: a company's name, linked to its stock quote, in a span inside the
		// sentence; a share bar of linked spans beside the paragraphs still goes.
		name: "linked span in a sentence",
		html: `<div id="Cnt-Main-Article-QQ">` + textArticle(2) + `<p style="TEXT-INDENT: 2em"><span onmouseover='ShowInfo(this)'><a class="a-tips-Article-QQ" href="/astock/GOOG.OQ.htm">Google</a></span>(<a href="http://t.qq.com/googlechina">Weibo</a>) bought the artificial intelligence company DeepMind in 2014.</p>` +
			`<div><span class="shares"><a href="/fb">Facebook</a> <a href="/tw">Twitter</a></span></div>` + textPara(2) + `</div>`,
		with:    []string{"Google(Weibo) bought the artificial"},
		without: []string{"Facebook"},
	}, {
		// mdr.de: the article's last subhead announces a box of teasers that is not
		// content; a heading that ends the text is dropped, one between paragraphs
		// stays.
		name: "heading that ends the text",
		html: `<div class="box"><div class="paragraph">` + textPara(0) + `</div><h3 class="subtitle">Autokunden haben in der Krise andere Sorgen</h3><div class="paragraph">` + textPara(1) + textPara(2) + `</div>` +
			`<h3 class="subtitle">Wie es in Thüringen weitergeht</h3></div><div class="teaser"><a href="/corona"><p class="ressort">Thüringen</p><h4>Alles zum Coronavirus</h4></a></div>`,
		with:    []string{"Paragraph A", "Autokunden haben in der Krise andere Sorgen\nParagraph B", "Paragraph C"},
		without: []string{"Wie es in Thüringen weitergeht"},
	}, {
		// WordPress's and TypePad's post classes name the author, the category and the
		// tags beside "post" or "entry": the post, not an author box, nor a cookie
		// banner for its tag "cookie-recipes"; the author box after it still goes, and
		// so do the comments.
		name: "post classes naming the author",
		html: `<div id="content"><div class="hentry p1 post publish author-admin category-uncategorized untagged" id="post-3286"><h2 class="entry-title">At Carven</h2><div class="entry-content">` + textPara(0) + textPara(1) + `</div></div>` +
			`<div class="author-box"><p>Hanneli is a stylist and photographer, who has lived in Paris, São Paulo and New York for years.</p></div>` +
			`<div class="entry-category-decor entry-author-eddie_ross entry-type-post entry" id="entry-6a00"><div class="entry-body">` + textPara(2) + `</div></div>` +
			`<div class="journal-entry-wrapper post-text authored-by-bluelily">` + textPara(3) + `</div>` +
			`<div class="post-22723 post type-post status-publish hentry category-recipes tag-cookie-recipes tag-dogs">` + textPara(4) + `</div>` +
			`<div id="comments"><p>What a lovely dress, I would wear it every day of the week and twice on Sundays.</p></div></div>`,
		with:    []string{"Paragraph A", "Paragraph B", "Paragraph C", "Paragraph D", "Paragraph E"},
		without: []string{"Hanneli is a stylist", "lovely dress"},
	}, {
		// A games site of 2008: teasers of one line in blocks whose class and id say
		// "text" and "story", the line in a <b>; the article a <span> of lines between
		// <br>s. The <b>'s line is its paragraph's and scores once, not again for the
		// <b> and its names.
		name: "inline element in a paragraph scores once",
		html: `<div class="wrap_topbox"><table><tr><td><a href="/360">The other upcoming games (P1)</a><div class="text_topbox_subhead" id="story_subhead_1"><b>Feature: Not excited enough about the line-up?</b></div></td>` +
			`<td><a href="/diablo">Finally news of Diablo (P2)</a><div class="text_topbox_subhead" id="story_subhead_2"><b>Preview: a studio scouted for a first look...</b></div></td></tr></table></div>` +
			`<div class="wrap_content"><div class="wrap_pod"><h1 class="text_article_headline">GoldenEye XBLA canned?</h1><span class="text_article_body">The long rumoured port of the classic has been canned after being in development for several months.<br><br>Apparently the game was to feature updated graphics, and of course, online multiplayer for sixteen players.<br><br>Neither company would comment on the rumour, which came from a source close to the studio.<br><br>The original game sold eight million copies, and a remake has been asked for by its fans, in letters, petitions and forum threads, for the better part of a decade.<br><br>Rights to the film licence are said to be the sticking point, as they have been for every attempt to bring the game back.</span></div></div>`,
		with:    []string{"The long rumoured port", "online multiplayer", "Neither company"},
		without: []string{"Not excited enough"},
	}, {
		// A Movable Type blog (crazyauntpurl.com): the readers' comments are blocks of
		// the post's own <div class="content">, after a heading with id="comments".
		name: "comments after a heading named comments",
		html: `<div id="center"><div class="content"><h2>September 10, 2012</h2><h3>It's hot, but that doesn't stop the knitting</h3>` + textArticle(4) +
			`<p class="posted">Posted by laurie at September 10, 2012 9:01 AM</p><h2 id="comments">Comments</h2>` +
			`<div id="c169900"><p>Ha! 60's for a low when your high is above 100 is delusional, here in Washington we had the 80's.</p></div><p class="posted">Posted by: Ellen at September 10, 2012 11:40 AM</p>` +
			`<div id="c169901"><p>This weather makes me weep, it is downright tear-inducing, enough with the humidity already!</p></div><p class="posted">Posted by: Kim at September 10, 2012 11:52 AM</p></div></div>`,
		with:    []string{"Paragraph A", "Paragraph D"},
		without: []string{"Washington", "humidity", "Ellen"},
	}, {
		// A news site of 2008 (ctv.ca, the Newsquest papers): the readers' comments follow
		// the story in its own container, after an anchor named for them and a line in
		// bold, no heading; an anchor named for comments before any prose (a "jump to
		// comments" target at the top) and a link to the comments end nothing.
		name: "comments after an anchor named comments",
		html: `<div id="story"><a name="comments-top"></a><p><a href="#commentSection">Comments (42)</a></p>` + textArticle(3) + `<hr><a name="commentSection"></a><b>Comments are now closed for this story</b><br><br>` +
			`<b>Stephen B</b><br><br>The time has come for the tax and spend Liberals of Ontario to start cutting some of the fat from government.<br><br>` +
			`<b>Lina</b><br><br>The government should not be spending taxpayers' money on industry, that is the private sector's job.</div>`,
		with:    []string{"Paragraph A", "Paragraph C"},
		without: []string{"closed", "Stephen", "Liberals", "taxpayers"},
	}, {
		// A TownNews paper of 2008: the story is runs of text between <br>s in a <span>,
		// no paragraph until its block ends, and the comments' anchor follows it in a
		// heading's <div> that holds only a picture.
		name: "comments after an anchor below a story of runs",
		html: `<div id="fullstory"><span class="story-detail">` + strings.Repeat("Juice Williams is not close to being in the league of the best, said two members of the defense, and they meant no disrespect.<br><br>", 6) +
			`</span><br><div class="hednavy-lg"><a name="comment"></a><img src="/hed-comments.gif"></div>` +
			`<div class="story-detail"><i><b>The following are comments from the readers. In no way do they represent the view of the paper.</b></i><p>Comment entries are limited to 100 words.</p><p>Go Illini, they will surprise everyone in Pasadena this year, mark my words on it.</p></div></div>`,
		with:    []string{"Juice Williams"},
		without: []string{"The following are comments", "limited to 100 words", "Go Illini"},
	}, {
		// The Telegraph's blogs of 2008: the post's paragraphs and each reader's comment
		// are blocks of one shape side by side, chosen one by one, and the anchor named
		// for the comments and their heading are between them, in no chosen block.
		name: "comments after an anchor between chosen blocks",
		html: `<div id="blog"><div class="story">` + textArticle(5) + `</div><a name="comments"></a><div class="yvhd">Comments</div>` +
			`<p class="story">I live in the US, but have religiously read all of the Flashman books since first discovering them back when I worked in the North Sea, and I am sorry to hear of the passing of Mr. Fraser.<br><b>Posted by J.P. Fallon on January 6, 2008 1:41 PM</b><br><span class="small"><a href="mailto:x@example.com">Report this comment</a></span></p>` +
			`<p class="story">Can we expect the memoirs of Moriarty or Ernst Stavro Blofeld to be the basis of a forthcoming series of affectionate biographical novels, after all?<br><b>Posted by Simon on January 6, 2008 1:12 PM</b></p></div>`,
		with:    []string{"Paragraph A", "Paragraph E"},
		without: []string{"Comments", "Flashman", "Moriarty", "Posted by"},
	}, {
		// A blog of 2008 whose comments' heading is a line in bold, not an <h3>; a line of
		// dialogue ("No reply.") and a forum's reply count ("Reply 9") are no such heading.
		name: "comments after a line in bold that says so",
		html: `<div class="post">` + textPara(0) + `<p>"Bartleby," said I, gently calling to him behind the screen.</p><p>No reply.</p><p>Reply 9</p>` + textPara(1) +
			`<br><b>Post Comments</b><br><div class="c"><p>Great article, I have been saying this for years and nobody listened to me at all.</p></div></div>`,
		with:    []string{"Paragraph A", "No reply.", "Reply 9", "Paragraph B"},
		without: []string{"Post Comments", "nobody listened"},
	}, {
		// A WordPress theme that names nothing: the comments' heading says what they
		// are ("717 Responses to ..."); a heading "Comment" inside the article, one of
		// its parts, stays.
		name: "comments after a heading that says so",
		html: `<div class="main"><div>` + textPara(0) + `<h3>Comment</h3>` + textPara(1) + `<h3>Briefing</h3>` + textPara(2) + `</div>` +
			`<h3>717 Responses to “It’s back! HOT giveaway from Jo Totes!”</h3><ol><li><div><cite>Maria</cite> says:</div><p>I would love to win this bag, it would be perfect for my camera and all of my lenses too.</p></li>` +
			`<li><div><cite>Jo</cite> says:</div><p>Count me in, the purple one is gorgeous and I have wanted one for the longest time now.</p></li></ol></div>`,
		with:    []string{"Paragraph A", "Comment\nParagraph B", "Paragraph C"},
		without: []string{"Responses", "Maria", "purple"},
	}, {
		// MathJax's assistive MathML beside its rendering (hidden from readers of the
		// screen, its glyphs drawn by CSS): the formula's tokens; a formula with a TeX
		// annotation gives the TeX, not its MathML's tokens nor the annotation-xml.
		name: "MathML formulas",
		html: `<article>` + textPara(0) + `<p>When <mjx-container class="MathJax" jax="CHTML"><mjx-math class="MJX-TEX" aria-hidden="true"><mjx-mi class="mjx-i"><mjx-c class="mjx-c1D44E"></mjx-c></mjx-mi></mjx-math>` +
			`<mjx-assistive-mml display="inline"><math xmlns="http://www.w3.org/1998/Math/MathML"><mi>a</mi><mo>≠</mo><mn>0</mn></math></mjx-assistive-mml></mjx-container>, there are two solutions to the equation.</p>` +
			`<p>The area of a square of side x is <math alttext="x^{2}"><semantics><msup><mi>x</mi><mn>2</mn></msup><annotation-xml encoding="MathML-Content"><apply><power/><ci>zeta</ci></apply></annotation-xml><annotation encoding="application/x-tex">x^{2}</annotation></semantics></math> in all.</p>` + textPara(1) + `</article>`,
		with:    []string{"When a ≠ 0, there are two solutions", "side x is x^{2} in all."},
		without: []string{"x 2", "zeta"},
	}, {
		// The Evening Standard: the standfirst in the <header> of the <article>, a
		// sentence of 160 characters, comes in; the site's header of links does not.
		name: "standfirst in the article's header",
		html: `<header id="header"><ul><li><a href="/news">News</a></li><li><a href="/sport">Sport</a></li><li><a href="/going-out">Going out</a></li></ul></header>` +
			`<article><header class="sc-eEfYrc"><h1>Caribbean islands tighten their rules</h1><p>Penalties for those who refuse to self-isolate are among the toughest in the region, with fines of up to $10,000 and a year in prison.</p></header>` +
			`<div class="body">` + textArticle(4) + `</div></article>`,
		with:    []string{"Penalties for those who refuse to self-isolate", "Paragraph A", "Paragraph D"},
		without: []string{"Going out"},
	}, {
		// The last paragraphs of an article ask the reader to subscribe or to write in
		// (theatlantic.com, laprensagrafica.com): prose too long for the edges' short
		// blocks, dropped there by their phrases; a last paragraph that names
		// subscribers stays.
		name: "calls to action in the last paragraphs",
		html: `<div class="article-body">` + textArticle(4) + `<p>We want to hear what you think about this article. Submit a letter to the editor or write to letters@example.com.</p>` +
			`<p>Hacemos periodismo desde hace 106 años, y ahora el periodismo es fundamental. Hazte miembro y disfruta de beneficios exclusivos.</p></div>`,
		with:    []string{"Paragraph D"},
		without: []string{"letter to the editor", "Hazte miembro"},
	}, {
		// dziennik.pl: a copyright notice ends the article as a paragraph of its own.
		name:    "copyright line that ends the article",
		html:    `<div class="detailContent">` + textArticle(4) + `<div class="licenceInfo"><p>Materiał chroniony prawem autorskim - wszelkie prawa zastrzeżone. Dalsze rozpowszechnianie artykułu za zgodą wydawcy INFOR Biznes.</p></div></div>`,
		with:    []string{"Paragraph D"},
		without: []string{"Materiał chroniony"},
	}, {
		// bund.net: the picture over the article is not a <figure>, its caption credits
		// the photograph; at the edge it goes, and between paragraphs too, a picture and
		// its caption alone in a block (pictureBlock).
		name: "credited caption at the edge",
		html: `<div class="article"><div class="image"><img src="a.jpg"><span class="bu">Das Hermelin ist im Winter gut getarnt. (mlharing / iStock.com)</span></div>` + textArticle(2) +
			`<div class="image"><img src="b.jpg"><span class="bu">Ein Hermelin im Sommer. Foto: Jane Doe</span></div>` + textPara(2) + `</div>`,
		with:    []string{"Paragraph A", "Paragraph C"},
		without: []string{"gut getarnt", "Ein Hermelin im Sommer"},
	}, {
		// A caption that its class names so, not a <figcaption>, goes as one does where
		// the article has more prose besides it: a WordPress image's "wp-caption-text",
		// a paragraph "pictureCaption" between the paragraphs. A gallery's stay.
		name: "captions named by their class",
		html: `<div class="entry-content">` + textArticle(2) + `<div class="wp-caption alignright"><img src="a.jpg"><p class="wp-caption-text">Former captain Rob Ramage enters court with his wife prior to being sentenced, (Mark O'Neill, Sun Media)</p></div>` +
			textPara(2) + `<div class="pictureCaption"><img src="b.jpg">Everton's Lee Carsley jumps over his teammate to head the ball against Chelsea.</div>` + textPara(3) + `</div>`,
		with:    []string{"Paragraph B", "Paragraph C", "Paragraph D"},
		without: []string{"Rob Ramage", "Lee Carsley"},
	}, {
		// Captions and credits named so in other languages, and a picture's credit named
		// so: they go as captions do; headings whose ids are their words stay
		// ("grundlegende" is no "legende", a slug of a heading is no caption's name).
		name: "captions and credits named in other languages",
		html: `<div class="article">` + textArticle(2) + `<div class="bild"><img src="a.jpg"><p class="bildunterschrift">Der Hafen im Winter, von der Brücke aus gesehen.</p><span class="photo-credit">Foto: Max Mustermann</span></div>` +
			textPara(2) + `<p class="didascalia">Il porto d'inverno visto dal ponte.</p>` + textPara(3) +
			`<h3 id="grundlegende-techniken">Grundlegende Techniken</h3><h3 id="how-to-add-captions-to-a-video-on-every-platform">How to add captions to a video</h3>` +
			textPara(4) + `</div>`,
		with:    []string{"Paragraph A", "Paragraph D", "Grundlegende Techniken", "How to add captions", "Paragraph E"},
		without: []string{"Der Hafen im Winter", "Max Mustermann", "Il porto"},
	}, {
		// A picture's <figure> whose caption or credit is not in a <figcaption> goes as a
		// caption does; a figure of a quotation stays.
		name: "picture figures without a figcaption",
		html: `<article>` + textArticle(2) + `<figure class="wp-block-image"><img src="a.jpg"><p>The harbour in winter, seen from the bridge. Photo: Jane Doe</p></figure>` + textPara(2) +
			`<figure><blockquote><p>A quotation set in a figure, long enough to be prose, with commas, clauses, and a full stop.</p></blockquote><img src="q.png"></figure>` + textPara(3) + `</article>`,
		with:    []string{"Paragraph A", "Paragraph C", "A quotation set in a figure", "Paragraph D"},
		without: []string{"The harbour in winter"},
	}, {
		// buzzfeed.com: a class that says a block has no caption ("no_caption") does
		// not name a caption.
		name: "a block without a caption",
		html: `<article><div class="buzz_sub_buzz"><div class="buzz_superlist_item text_hit">` + textArticle(3) + `</div>` +
			`<div class="buzz_superlist_item image_hit no_caption"><h2>The mother of a woman who took suspected diet pills bought online has described her daughter's death.</h2><div class="sub_buzz_content"><img src="a.jpg"></div></div>` +
			`<div class="buzz_superlist_item text_hit">` + textPara(3) + `</div></div></article>`,
		with: []string{"The mother of a woman", "Paragraph C"},
	}, {
		// The caption named so in a table's cell (telegraph.co.uk: <td class="caption">
		// under the picture's), in a heading (canada.com: <h4 id="storyphotocaption">),
		// and over the article in a block of its own beside the article's body, both
		// chosen (nytimes.com: <div class="image"> before <div id="articleBody">).
		name: "captions named so in cells, headings and blocks of their own",
		html: `<div id="article"><h1>Ryan and Boston College End on a High Note</h1><div class="image" id="wideImage"><img src="a.jpg" width="600" height="325"><div class="credit">John Raoux/Associated Press</div><p class="caption">Eagles Coach Jeff Jagodzinski hugging safety Jamie Silva, who had two interceptions.</p></div>` +
			`<div class="timestamp">Published: December 29, 2007</div><div id="articleBody">` + textArticle(2) +
			`<table width="333" align="right"><tr><td rowspan="2" width="8">&nbsp;</td><td width="325"><img src="b.jpg"></td></tr><tr><td class="caption">Ramming it down their throats: Sibierski blasts the ball into the net</td></tr></table>` + textPara(2) +
			`<div id="imageBox"><img id="storyphoto" src="c.jpg"><a href="javascript:void window.open('c.html')">View Larger Image</a><h4 id="storyphotocaption">Hoang Son Pham is seen shortly before his first major surgery.</h4></div>` + textPara(3) + `</div></div>`,
		with:    []string{"Paragraph A", "Paragraph C", "Paragraph D"},
		without: []string{"Eagles Coach", "Ramming it down", "Hoang Son Pham"},
	}, {
		// A picture set beside the text with its caption in a box aligned or floated
		// right (bbc.co.uk, turkishpress.com: <table align="right" width="203">)
		// goes as a caption does; a box without a picture stays, and so does BBC's
		// quotation beside the text, whose images (alt="") are quote marks.
		name: "floated picture boxes",
		html: `<div id="content">` + textArticle(2) + `<table border="0" cellspacing="0" align="right" width="203"><tr><td><div><img src="a.jpg" width="203" height="152" alt="The fire-damaged house"><div>The burnt-out shell of the house in Omagh</div></div></td></tr></table>` +
			textPara(2) + `<div style="float: left; width: 167px"><img src="b.jpg"><br><div>Daniel Vettori celebrates after dismissing Bangladeshi batsman Shakib Al Hasan. (AFP)</div></div>` + textPara(3) +
			`<div style="float:right">Paragraph of a floated box without a picture, long enough to be prose, with commas, clauses, and a full stop.</div>` + textPara(4) +
			`<table align="right" width="208"><tr><td><img src="o.gif" alt=""></td><td><div><img src="start_quote.gif" alt=""><b>No matter what the cause, hostage-taking can never be justified</b></div><div>Foreign Office spokesman</div></td></tr></table>` + textPara(5) + `</div>`,
		with:    []string{"Paragraph A", "Paragraph C", "Paragraph D", "floated box without a picture", "Paragraph E", "hostage-taking can never be justified", "Paragraph F"},
		without: []string{"burnt-out shell", "Daniel Vettori"},
	}, {
		// A picture and a short text alone together in a block that no class names, the
		// text set apart from the picture's line, is its caption and goes as one does:
		// <div><img><div>caption</div></div>, <p><img><br>caption</p>,
		// <span><img><em>caption</em></span>. A paragraph with a decoration (alt="") or an
		// initial on its picture's line stays, and so do a teaser (a picture and its
		// link), a block whose picture comes with a heading, a picture with words in a
		// line of text, and a run of pictures each with its name (a team's faces).
		name: "pictures with their captions alone in a block",
		html: `<div class="story">` + textArticle(2) + `<div><img src="a.jpg"><div>The bridge at dawn, seen from the old market. Photo: Jane Doe</div></div>` + textPara(2) +
			`<p><img src="b.jpg" width="600" height="400"><br>The harbour in winter, from the lighthouse.</p>` + textPara(3) +
			`<p><span class="image"><img src="c.jpg"><em>Fishermen mending their nets on the quay.</em></span></p>` + textPara(4) +
			`<p><img src="icon.png" alt=""><br>The council's report on the bridge, read by its clerk.</p>` +
			`<p><img src="d.jpg">nce upon a time the bridge was a ferry, and the town paid the ferryman in fish.</p>` +
			`<div><img src="e.jpg"><h3>Where the bridge stands</h3><p>A map of the river.</p></div>` + textPara(5) +
			`<div><a href="/next"><img src="f.jpg"></a><a href="/next">The next story: the bridge's first year</a></div>` +
			`<p>The ferry's last crossing <span><img src="g.jpg"><em>was on a Sunday in May</em></span>, the town says, and nobody missed it.</p>` +
			`<div class="team"><div><img src="h.jpg"><div>Jane Doe, river engineer</div></div><div><img src="i.jpg"><div>John Roe, town clerk</div></div></div></div>`,
		with:    []string{"Paragraph A", "Paragraph C", "Paragraph D", "Paragraph E", "The council's report on the bridge", "nce upon a time", "Where the bridge stands", "A map of the river", "Paragraph F", "was on a Sunday in May", "Jane Doe, river engineer", "John Roe, town clerk"},
		without: []string{"The bridge at dawn", "The harbour in winter", "Fishermen mending"},
	}, {
		// guardian.co.uk (2008): the picture over the story in flat markup, its caption
		// in small print on the line under it, no class to name it; also under a link
		// around the picture, and in <small>. Small print under a decoration (alt=""),
		// small print in a line of text, and text of the normal size under a picture stay.
		name: "small print under a picture",
		html: `<div id="GuardianArticle"><h1>Stolen Picasso recovered undamaged</h1><FONT SIZE="2"><B>Tom Phillips<BR>Thursday January 10, 2008</B><BR></FONT>` +
			`<IMG SRC="picasso372.jpg" ALT="Police guard recovered paintings" WIDTH="372" HEIGHT="192"><BR><FONT FACE="Geneva,Arial" SIZE="1">Saved ... Sao Paulo police guard the recovered Picasso paintings. Photograph: Sebastiao Moreira/EPA<BR>&nbsp;</FONT><BR><BR>` +
			`<div id="GuardianArticleBody">` + textArticle(2) + `<a href="big.jpg"><img src="small.jpg" alt="The museum"></a><br><small>The museum on Avenida Paulista.</small>` + textPara(2) +
			`<img src="rule.gif" alt=""><br><font size="1">Small print under a rule between the paragraphs.</font>` + textPara(3) +
			`<p>The thieves <img src="h.jpg" alt="a hand"><br><font size="-1">left the frames</font> behind them, the police said on Wednesday.</p>` +
			`<img src="map.jpg" alt="A map"><br><font size="3">The city's museums, a text of the normal size under a map.</font>` + textPara(4) + `</div></div>`,
		with:    []string{"Paragraph A", "Paragraph C", "Small print under a rule", "left the frames", "a text of the normal size", "Paragraph E"},
		without: []string{"Saved ... Sao Paulo", "Avenida Paulista"},
	}, {
		// A gallery of pictures each with its caption alone in a block keeps them: they
		// are its prose.
		name: "gallery of pictures with captions in blocks",
		html: `<div class="gallery"><h1>The bridge through the year</h1>` + textFeedItems(6, `<div><img src="%.jpg"><p>Photo %: the bridge at dawn in its month, seen from the old market on the river's north bank, with the fog rising off the water.</p></div>`) + `</div>`,
		with: []string{"Photo 1: the bridge", "Photo 6: the bridge"},
	}, {
		name: "gallery of captions named by their class",
		html: `<div class="gallery"><h1>The bridge through the year</h1>` + textFeedItems(6, `<div class="item"><img src="%.jpg"><p class="image-caption">Photo %: the bridge at dawn in its month, seen from the old market on the river's north bank, with the fog rising off the water and the first trams crossing it.</p></div>`) + `</div>`,
		with: []string{"Photo 1: the bridge", "Photo 6: the bridge"},
	}, {
		// nintendo.com: a press release, and beside it a column of the other news,
		// each a heading, a sentence of teaser with a "more" link and a date; the
		// teasers score as prose, but the column does not join the release.
		name: "feed of other news beside a press release",
		html: `<div id="articleBlock"><div id="mainPrimary"><h3>Get Ready to Party</h3><p class="date">2012-11-07</p>` + textArticle(5) + `</div>` +
			`<div id="secondaryContentContainer"><ul>` + textFeedItems(5, "<li><h3>Nintendo news %</h3><p class=\"text\">Exciting games, videos and more, check out what is new and downloadable this week, item %. <a href=\"/news/%\">more</a></p><p class=\"date\">2012-11-0%</p></li>") + `</ul></div></div>`,
		with:    []string{"Paragraph A", "Paragraph E"},
		without: []string{"Nintendo news", "Exciting games"},
	}, {
		// cbc.ca: the story's column, and beside it a column of the region's
		// headlines: a <dl> whose terms are links to other stories and whose
		// definitions are their teasers.
		name: "headlines and teasers in a definition list beside the story",
		html: `<div id="story"><div id="storywell"><div id="storybody">` + textArticle(6) + `</div></div><div id="storyright"><div class="lineuproll"><h3>B.C. Headlines</h3><dl>` +
			textFeedItems(6, "<dt class=\"headline\"><a href=\"/bc/story/%\">Hops shortage spurs microbreweries, story %</a></dt><dd>A worldwide shortage of hops is forcing some microbreweries in the province to rewrite their recipes, story %.</dd>") + `</dl></div></div></div>`,
		with:    []string{"Paragraph A", "Paragraph F"},
		without: []string{"B.C. Headlines", "Hops shortage"},
	}, {
		// The same headlines inside the story's own block, after its paragraphs.
		name: "headlines and teasers in a definition list after the story",
		html: `<div id="storybody">` + textArticle(7) + `<h3>Canada Headlines</h3><dl>` +
			textFeedItems(4, "<dt class=\"headline\"><a href=\"/canada/story/%\">Federal probe sought into vans, story %</a></dt><dd>Questions are being raised about the use of passenger vans following the death of seven athletes, story %.</dd>") + `</dl></div>`,
		with:    []string{"Paragraph A", "Paragraph F"},
		without: []string{"Canada Headlines", "Federal probe"},
	}, {
		// TypePad (sethgodin.typepad.com): the post's footer line, long enough to be a
		// paragraph of prose, says who posted it and links it; the trackbacks and the
		// copyright follow. A paragraph that only speaks of copyright stays.
		name: "post footer and trackbacks",
		html: `<div class="entry"><div class="entry-body">` + textArticle(3) + `<p>Sony became the last major label to sell music without copyright protection online.</p></div>` +
			`<p class="entry-footer-info">Posted by Seth Godin on July 19, 2012 | <a href="/p">Permalink</a></p><div class="trackbacks"><p>TrackBack URL for this entry:<br><span>http://www.typepad.com/services/trackback/6a00d8</span></p>` +
			`<p>Listed below are links to weblogs that reference <a href="/p">The importance of going first</a>:</p></div><p>Copyright 2012 Seth Godin</p></div>`,
		with:    []string{"Paragraph C", "without copyright protection"},
		without: []string{"Seth Godin", "TrackBack", "typepad", "Listed below"},
	}, {
		// visualnews.com, makeandtakes.com: a box about the author after the post, its
		// biography a paragraph of prose longer than the 400 characters that keep a
		// block whose name only may be boilerplate.
		name: "author box after the post",
		html: `<div class="post"><div class="entry-content">` + textArticle(5) + `</div><div class="author-box"><h2><a href="/author/ben">Written by Benjamin Starr</a></h2><p>Known in some circles as the most amazing man in the universe, he once saved an entire family of kittens from a burning building, wrote three novels about it, and still found the time to edit this magazine, where he writes about art, design, photography and the people who make them, from his home by the sea, with two dogs, a garden, and a large collection of paper models, which he builds at night, one fold at a time, while listening to old radio plays about detectives, lighthouses, trains and the long winters of the north, which he likes best of all.</p></div>` +
			`<div class="postauthor"><h4>Written by <a href="/about">Marie</a></h4><p>Marie is known as the most amazing man in the universe, he once saved an entire family of kittens from a burning building, wrote three novels about it, and still found the time to edit this magazine, where he writes about art, design, photography and the people who make them, from his home by the sea, with two dogs, a garden, and a large collection of paper models, which he builds at night, one fold at a time, while listening to old radio plays about detectives, lighthouses, trains and the long winters of the north, which he likes best of all.</p></div></div>`,
		with:    []string{"Paragraph A", "Paragraph E"},
		without: []string{"Written by", "amazing man", "Marie is known"},
	}, {
		// cmswire.com's box about the author inside the post's block, named in one word
		// each ("authorinfo", "authordescription"), its biography longer than the 400
		// characters that keep a block whose name only may be boilerplate; ids made of
		// a heading's words ("authoring-libraries") name no box.
		name: "author box named in one word",
		html: `<div class="entrycontent">` + textArticle(5) + `<div id="authorinfo"><div id="authoravatar"><img src="/jeff.jpg" alt="Jeff"></div><div id="authordescription"><h2 class="author">Jeff Molander</h2>` +
			`<p>Jeff Molander is the authority on making social media sell and corporate trainer to small businesses and global corporations alike. He is an accomplished entrepreneur, having co-founded what is today one of the largest affiliate networks, and a teacher at a business school, where he lectures on marketing, on selling, on the web and on the people who buy there, and he writes a newsletter on all of it every week, read by thousands.</p>` +
			`<p>You can find Jeff on Twitter.</p></div></div></div>` +
			`<div class="docs"><section id="authoring-libraries"><h2>Authoring libraries</h2>` + textPara(6) + `</section></div>`,
		with:    []string{"Paragraph A", "Paragraph E", "Authoring libraries"},
		without: []string{"Jeff Molander", "accomplished entrepreneur", "on Twitter"},
	}, {
		// AllThingsD: the post is the page's role=main; beside it a sidebar's box of
		// prose about the section ("Along with original content...") that no class names
		// as boilerplate, and over it a notice that the browser is out of date.
		name: "prose beside the page's main",
		html: `<div id="wrap"><div class="notice"><p>You are using an outdated browser that is no longer supported, which may leave you open to security holes; please update it.</p></div>` +
			`<div id="main" role="main">` + textArticle(4) + `</div><div id="side"><div class="module"><div class="module-header">Voices</div>` +
			`<p>Along with original content and posts from across the network, this section includes must-reads from other web sites, pieces we have read, discussions we have followed, stuff we like, six posts a day from sites we picked.</p></div></div></div>`,
		with:    []string{"Paragraph A", "Paragraph D"},
		without: []string{"outdated browser", "Voices", "Along with original content"},
	}, {
		// msn.com, Breitbart: the story is an <article>; beside it a block of prose that
		// is not the story's (a commission disclosure, a teaser of another story). A
		// forum's posts are <article>s of one shape side by side: all stay.
		name:    "prose beside an article winner",
		html:    `<div id="page"><article class="story">` + textArticle(4) + `</article><div class="box"><p>Aisha's salon and spa chain bans men from entering any of its twenty-five locations after one man's act, which the owners, their staff and their clients had asked for since the summer.</p></div></div>`,
		with:    []string{"Paragraph A", "Paragraph D"},
		without: []string{"salon and spa"},
	}, {
		name: "a forum's posts as articles of one shape",
		html: `<div id="thread"><article class="message post">` + textArticle(3) + `</article><article class="message reply"><p>I am a beginner, I have been riding trails now for a long time, but have not done any mountain biking yet, so I am going to start learning around Pittsburgh.</p></article></div>`,
		with: []string{"Paragraph A", "Paragraph C", "Pittsburgh"},
	}, {
		// A block whose class names an author but that is the post (Sandbox's
		// "s-author-none" on the content's wrapper), or a byline's <span> a page left
		// open around the text, stays.
		name: "author names on the post's wrappers",
		html: `<div class="content single s-category-news s-author-none">` + textArticle(12) + `</div>`,
		with: []string{"Paragraph A", "Paragraph L"},
	}, {
		name: "byline's span left open around the post",
		html: `<div class="sidebar-text"><p>` + strings.Repeat("A sidebar of prose, links and notes. ", 24) + `</p></div><div class="post-body"><span class="byline-author">Posted by Scott, Product Manager<br>` + textArticle(7) + `</span></div>`,
		with: []string{"Paragraph A", "Paragraph G"},
	}, {
		// A WordPress related-posts plugin inside the post's block: each item a card
		// whose heading is inside a wrapper (<li><div><h3><a>).
		name: "related posts as cards in wrappers",
		html: `<div id="maincontent"><div class="post hentry"><div class="storycontent">` + textArticle(7) + `<div id="seo_alrp_related"><h2>Posts Related to Lancia Delta Review</h2><ul>` +
			textFeedItems(5, "<li><div class=\"seo_alrp_rl_content\"><h3><a href=\"/review-%\">Lancia Review %</a></h3><p>The Power of Lancia Stratus When the people will buy a new car, usually they will look for some review %.</p></div></li>") + `</ul></div></div></div></div>`,
		with:    []string{"Paragraph A", "Paragraph G"},
		without: []string{"Lancia Review", "The Power of Lancia"},
	}, {
		// news.cnet.com's blog: a short post beside columns of other posts' linked
		// headlines. The headlines are links, not prose: they do not make the post a
		// small part of the page's prose, whose paragraphs would then all be taken.
		name: "short post beside lists of linked headlines",
		html: `<div id="content"><div class="post single"><h1>Court dismisses trademark suit</h1><div class="postBody">` + textArticle(4) + `</div></div>` +
			`<div id="relatedPane"><div id="about"><h3>About News Blog</h3><p>Recent posts on technology, trends, and more.</p></div><ul>` +
			textFeedItems(30, "<li><a href=\"/8301-%\">Microsoft releases tools to boost Web accessibility, part %</a></li>") + `</ul></div></div>`,
		with:    []string{"Paragraph A", "Paragraph D"},
		without: []string{"Recent posts on technology", "Microsoft releases"},
	}, {
		// A page whose content is cards each wrapped whole in a link (<a><div>...):
		// their descriptions are prose, and the list is the text.
		name: "cards wrapped in links as the content",
		html: `<div class="section_wrapper"><main><section class="hero"><h2>Standard Exchanges</h2><p>Choose Where You'd Like to Buy and Sell</p></section><section class="primary-content"><div class="product-listings"><h3>Exchanges</h3><div class="grid">` +
			textFeedItems(12, "<a class=\"single-product\" href=\"/exchange/%\"><div class=\"inner-wrapper\"><span class=\"h5\">Exchange %</span><span class=\"h6\">Exchange % is a Spanish exchange for easy buy and sell, available in many countries.</span></div></a>") +
			`</div></div></section><section class="cta"><div class="content"><h4>Want to see your exchange on this page?</h4><p>We'd love to promote you in our listing.</p></div></section></main></div>`,
		with: []string{"Exchange 1 is a Spanish exchange", "Exchange 12 is a Spanish exchange"},
	}, {
		// dailymail.co.uk: beside the article, a column of paragraphs that each open
		// with another story's linked headline and go on with its teaser; the teasers'
		// prose does not join the article, nor does it make the article too small a
		// part of the page's prose to stand alone.
		name: "paragraphs opening with other stories' headlines beside the article",
		html: `<div id="ContentGroup"><div id="ArtContent"><h1>Chelsea's my last stop</h1>` + textArticle(7) + `</div><div id="block1"><div id="AdsLeft"><h3>Must Read</h3>` +
			textFeedItems(7, "<p><a href=\"/sport/%\">Bellamy raring to go for Hammers return, part %</a> West Ham striker Craig Bellamy is expected to make his long-awaited first-team return for the Premier League clash with Fulham at Craven Cottage this weekend, part %.</p>") + `</div></div></div><div class="note"><p>` + strings.Repeat("A note of the site about its paper and its readers, its offices and its history. ", 4) + `</p></div>`,
		with:    []string{"Paragraph A", "Paragraph G"},
		without: []string{"Must Read", "Bellamy"},
	}, {
		// A blog's sidebar beside the post, kept for its prose (its "About Me" is
		// longer than the 400 characters that keep a block named as maybe
		// boilerplate), and a widget of prose (movieline.com's): they do not join the
		// post as siblings of prose.
		name: "sidebar of prose beside the post",
		html: `<div id="outer-wrapper"><div id="main-wrapper"><div class="post">` + textArticle(6) + `</div></div><div id="sidebar-wrapper"><h2>About Me</h2><p>` +
			strings.Repeat("Prior to founding this blog, I held equity analyst positions with three brokerage firms, wrote for magazines and taught. ", 4) + `</p></div>` +
			`<div class="widget movieline"><p>` + strings.Repeat("The official trailer for the film, starring two actors as grown-up witch hunters, is out. ", 5) + `</p></div></div>`,
		with:    []string{"Paragraph A", "Paragraph F"},
		without: []string{"About Me", "equity analyst", "official trailer"},
	}, {
		name: "last paragraph naming subscribers",
		html: `<div class="story">` + textArticle(4) + `<p>It was shot by two film makers, they of the 3.7 million subscribers and 736 million hits on their own channel.</p></div>`,
		with: []string{"Paragraph D", "3.7 million subscribers"},
	}, {
		// dailymail.co.uk: a video.js player between the article's paragraphs; its
		// controls are <div>s with a role (slider, button), their labels are no text.
		// A link with the role of a button (a guide's "Next") stays.
		name: "video player controls by role",
		html: `<div itemprop="articleBody">` + textArticle(2) + `<div class="vjs-control-bar">` +
			`<div role="slider" aria-valuenow="23" class="vjs-progress-holder"><div class="vjs-load-progress"><span class="vjs-control-text"><span>Loaded</span>: 0%</span></div></div>` +
			`<div class="vjs-play-control" role="button" tabindex="0"><div><span class="vjs-control-text">Play</span></div></div>` +
			`<div class="vjs-fullscreen-control" role="Button " tabindex="0"><span class="vjs-control-text">Fullscreen</span></div></div>` +
			textPara(2) + `<p>When the add-ons are set, the themes come next, as the <a class="next" href="#part-2" role="button">next part of the guide</a> shows, with pictures of each step.</p></div>`,
		with:    []string{"Paragraph B", "Paragraph C", "next part of the guide"},
		without: []string{"Loaded", "Play", "Fullscreen"},
	}, {
		// dailyblogtips.com: a newsletter's sign-up box between the article's paragraphs,
		// a field for the e-mail address under its heading and its promise; its class
		// names nothing.
		name: "newsletter box around a field",
		html: `<div class="entry">` + textArticle(2) + `<div class="box-3"><h3>Sign-up To The Newsletter And Get A Free eBook</h3>` +
			`<p>Sign-up to the newsletter and you will be able to download the eBook for free, with tips to improve your blog every week.</p>` +
			`<form action="/subscribe"><input type="email" name="email"><input type="submit" value="Subscribe"></form></div>` + textPara(2) + `</div>`,
		with:    []string{"Paragraph B", "Paragraph C"},
		without: []string{"Sign-up", "eBook"},
	}, {
		// dailymail.co.uk: a photo's share icons, one a box to copy the link from; the
		// caption beside them goes as captions do (named by its class).
		name: "copy-link box beside a caption",
		html: `<div itemprop="articleBody">` + textArticle(2) + `<div class="artSplitter"><img src="a.jpg"><div class="wrapper-3KBa2"><ul>` +
			`<li data-social-scope="facebook"></li><li data-social-scope="twitter"></li>` +
			`<li data-social-scope="link"><div class="box-2c1rn"><input type="text" value="https://example.com/a.html" readonly><div>Copy link to paste in your message</div></div></li></ul></div>` +
			`<p class="imageCaption">Tony Romo tees off at the 29th annual American Century Championship in Lake Tahoe, Nevada on Sunday</p></div>` + textPara(2) + `</div>`,
		with:    []string{"Paragraph C"},
		without: []string{"Copy link", "Tony Romo tees off"},
	}, {
		// lecker.de: the ingredients under a field for the number of servings, and IMDb's
		// episodes, each with a rating field of its own: lists and links, not boxes.
		name: "fields in ingredients and in items",
		html: `<div class="recipe">` + textArticle(2) + `<div class="ingredients"><p>Für <input type="text" name="numberOfPeople" value="15"> Stücke</p>` +
			`<table><tr><td>350 g</td><td>Zucker</td></tr><tr><td>500 ml</td><td>Milch</td></tr></table></div>` +
			`<div class="list_item"><a href="/e1">The Fury of Iron Fist</a><div class="airdate">7 Sep. 2018</div><div class="rating"><input name="rating" value="0" type="text"></div>` +
			`<p>While rival gangs battle for the soul of New York, Danny and Colleen cross paths with an old acquaintance.</p></div>` + textPara(2) + `</div>`,
		with: []string{"Zucker", "While rival gangs battle"},
	}, {
		// washingtonpost.com, nytimes.com, cnn.com: an advertisement's slot and a photo's
		// controls between the paragraphs, each a block of its own; the heading over the
		// photo stays, and so do the words in a sentence and in a table's cells.
		name: "widget labels between paragraphs",
		html: `<div class="article-body">` + textArticle(1) + `<div class="ad-label">Story continues below advertisement</div>` + textPara(1) +
			`<h2>The coffee cup art</h2><p>(Click To Enlarge)</p><div><span>Advertisement</span></div>` +
			`<p>The <b>advertisement</b> ran for a week, and the agency paid for it, they said, with the money it had.</p>` + textPara(2) +
			`<table><tr><th>Open</th><th>Close</th></tr><tr><td>12.5</td><td>13.1</td></tr></table></div>`,
		with:    []string{"Paragraph B", "The coffee cup art", "Paragraph C", "The advertisement ran", "Close"},
		without: []string{"Story continues", "Click To Enlarge", "\nAdvertisement"},
	}, {
		// mirror.co.uk, hellomagazine.com: a tweet and an Instagram post embedded between
		// the paragraphs, as their embed codes write them before the script renders them.
		// The quoted post is the article's: the people who chose the held-back benchmark's,
		// Dragnet's and Readability.js's texts kept it (GoogleTrends-2017's did not).
		name: "embedded social posts",
		html: `<div class="article-body">` + textArticle(2) +
			`<blockquote class="twitter-tweet twitter-tweet-rendered"><p lang="en" dir="ltr">Gritty is 26 still going to high school parties</p>&mdash; kenz (@Gracelesis) <a href="https://twitter.com/x/status/1">September 24, 2018</a></blockquote>` +
			textPara(2) + `<blockquote class="instagram-media" data-instgrm-version="9"><div><a href="https://www.instagram.com/p/x/">View this post on Instagram</a>` +
			`<p>A post shared by Kylie (@kyliejenner) on <time datetime="2018-09-22">Sep 21, 2018 at 8:30pm PDT</time></p></div></blockquote>` + textPara(3) + `</div>`,
		with: []string{"Paragraph B", "Gritty is 26 still going to high school parties", "Paragraph C", "Paragraph D"},
	}, {
		// businessinsider.de: the body is hidden until the page's scripts have run (a
		// second <body> tag's attributes go to the body, as the parser's rules say).
		name: "body hidden until scripts run",
		html: `<body class="hidden" data-gr-c-s-loaded="true"><div class="KonaBody post-content">` + textArticle(2) + `</div>`,
		with: []string{"Paragraph A", "Paragraph B"},
	}, {
		// infoworld.com, caranddriver.com: a call to subscribe or follow, a short paragraph
		// with its link, between the article's paragraphs; a paragraph of the article
		// that names subscribers, with no link, stays.
		name: "calls to action between paragraphs",
		html: `<div class="article-body">` + textArticle(1) + `<p>[ Keep up on the day's tech news headlines with the <a href="/newsletters">Today's Headlines newsletter</a>. ]</p>` +
			textPara(1) + `<p>The paper lost a third of its subscribers to the newsletter in a year, its editor said.</p>` + textPara(2) + `</div>`,
		with:    []string{"Paragraph B", "lost a third of its subscribers", "Paragraph C"},
		without: []string{"Keep up on"},
	}, {
		// Invision Community's forums (Corsair's, Evernote's, Linus Tech Tips'): every
		// post's body is "ipsComment_content" with the id "comment-4711_wrap", beside its
		// author's pane, inside a form; the page has no prose but the posts and a note
		// to sign in. The posts are the content, the author's pane is not.
		name: "forum thread of posts named as comments",
		html: `<main id="ipsLayout_body"><h1 class="ipsType_pageTitle">New UI 2024</h1><div class="cTopic" id="comments"><div id="elPostFeed"><form action="/submit">` +
			textFeedItems(3, `<a id="comment-%"></a><article id="elComment_%" class="cPost ipsBox ipsComment"><aside class="ipsComment_author cAuthorPane"><h3><a href="/profile/%">Member %</a></h3><ul><li>Level 5</li><li>2 posts</li></ul></aside>`+
				`<div class="ipsComment_content ipsType_medium" id="comment-%_wrap"><div class="ipsComment_meta"><a href="/topic/?comment=%">Posted March %, 2024</a></div>`+
				`<div class="cPost_contentWrap"><p>I don't like this new look, post %; the previous interface was more functional, and at the same time very friendly to its users.</p></div></div></article>`) +
			`</form></div><div class="ipsBox"><h2>Create an account or sign in to comment</h2><p>You need to be a member in order to leave a comment</p></div></div></main>`,
		with:    []string{"new look, post 1", "new look, post 2", "new look, post 3"},
		without: []string{"Level 5"},
	}, {
		// lobste.rs: a story is a link, its comments are the thread.
		name: "link aggregator's comment thread",
		html: `<div class="story"><a href="https://blog.example.org/goals">Rust Project goals</a> <a href="/domain/blog.example.org">blog.example.org</a></div><ol class="comments">` +
			textFeedItems(3, `<li class="comments_subtree"><div class="comment"><div class="details"><a href="/~user%">user%</a> 1 year ago</div>`+
				`<div class="comment_text"><p>Comment %: very interested and curious about the ergonomic reference counting, as I clone a lot.</p></div></div></li>`) + `</ol>`,
		with: []string{"Comment 1:", "Comment 3:"},
	}, {
		// Blogger, WordPress (dragnet-R103, R118): a post shorter than a paragraph of
		// prose, or mostly links, and its readers' comments: the post beside them, in a
		// block named as one ("post hentry"), is the content; a link to the comments
		// inside it ("comment-link") does not make it one of them.
		name: "short post and its comments",
		html: `<div class="blog-posts hfeed"><div class="post hentry"><h3 class="post-title">Little gifts</h3><div class="post-body entry-content">Dear all, see the <a href="/event">event</a> on <a href="/sat">Saturday</a>!<br><img src="a.jpg"></div>` +
			`<a class="comment-link" href="#comments">2 comments</a></div></div><div class="comments" id="comments"><h4>2 comments:</h4><dl id="comments-block">` +
			textFeedItems(2, `<dt class="comment-author">reader% said...</dt><dd class="comment-body"><p>Comment %: I would have loved to be there on Saturday, maybe at the next event, with the children.</p></dd>`) + `</dl></div>`,
		with:    []string{"Dear all"},
		without: []string{"Comment 1:", "Comment 2:"},
	}, {
		// bbPress (woodworkersguildofamerica.com's forum): "76 Replies" heads the
		// replies, posts of the same shape as the question before it, not readers'
		// comments on it.
		name: "forum replies heading between posts",
		html: `<div class="forum-thread"><div class="forum-post forum-post-original"><div class="forum-post-header"><span>Pepper Pot</span> Jun 7, 2017</div><div class="forum-post-content">` + textPara(0) + `</div></div>` +
			`<h2 class="forum-replies-heading">76 Replies</h2>` +
			textFeedItems(2, `<div class="forum-post forum-post-reply" id="post-%"><div class="forum-post-header"><span>Member %</span> Jun 8, 2017</div><div class="forum-post-content">`+
				`<p>Reply %: first off, if you really are new, get any old saw and a square, and practise your cuts on scrap wood.</p></div></div>`) + `</div>`,
		with: []string{"Paragraph A", "Reply 1:", "Reply 2:"},
	}, {
		// WordPress: "12 Responses" between the post and its list of comments, of
		// another shape, ends the text.
		name: "blog comments heading after the post",
		html: `<div class="post hentry"><div class="entry-content">` + textArticle(3) + `</div></div><div id="comments-area"><h3 class="comments-title">12 Responses to “Little gifts”</h3><ol class="comment-list">` +
			textFeedItems(2, `<li class="odd"><div class="says">reader% says:</div><p>Comment %: I would have loved to be there on Saturday, maybe at the next event, with the children.</p></li>`) + `</ol></div>`,
		with:    []string{"Paragraph C"},
		without: []string{"Comment 1:", "Comment 2:"},
	}, {
		// reddit.com (Tailwind): a post's text in a block whose overflow is clipped,
		// "overflow-hidden", is shown; a block of the class "hidden" is not.
		name: "overflow-hidden is shown",
		html: `<shreddit-post><h1>Laptop advice</h1><div class="mb-sm overflow-hidden px-md" slot="text-body"><div class="md"><p>Hi, all! I'm a second year college student, and after serving me through high school and last year, my laptop has finally given out.</p>` +
			`<p>I'm looking to get a new one, but honestly, I've no idea what good parameters would be and what brand I should go for.</p></div></div><div class="hidden">Open menu</div></shreddit-post>` +
			`<shreddit-comment-tree>` + textFeedItems(3, `<shreddit-comment><div slot="comment"><p>Reply %: get a business laptop, they are built to last, and parts are easy to find for years after.</p></div></shreddit-comment>`) + `</shreddit-comment-tree>`,
		with:    []string{"my laptop has finally given out", "what brand I should go for"},
		without: []string{"Open menu"},
	}, {
		// XenForo: a quote of an earlier post ends in an <a role="button"> that links
		// nowhere, the control that expands it; a link with the role of a button stays.
		name: "button that links nowhere",
		html: `<article class="message-body">` + textPara(0) + `<blockquote class="bbCodeBlock bbCodeBlock--quote"><div class="bbCodeBlock-title">pnomes said:</div>` +
			`<div class="bbCodeBlock-content"><div class="bbCodeBlock-expandContent">That's amazing! Congrats on the interview, and good luck with it next month!</div>` +
			`<div class="bbCodeBlock-expandLink"><a role="button" tabindex="0">Click to expand...</a></div></div></blockquote>` + textPara(1) +
			`<p>Read on in <a role="button" href="/guide/part-2">the next part of the guide</a>, where the joints are cut and glued together.</p></article>`,
		with:    []string{"pnomes said:", "That's amazing!", "Paragraph B", "the next part of the guide"},
		without: []string{"Click to expand"},
	}, {
		// thehindu.com (2008): the story's lines in a table cell end in the links that
		// print and mail it, and the cell goes on with the paper's sections and services
		// after them: the notice ends the text.
		name: "print and mail links end the story",
		html: `<table><tr><td class="story">` + textArticle(3) + `<p>Printer friendly <a href="/print.htm">page</a><br>` +
			`Send this article to Friends by <a href="/mail.htm">E-Mail</a></p><p>Sections: ePaper, Front Page, National, Tamil Nadu, Kerala, Other States, Opinion</p>` +
			`<p>Advts: Retail Plus, Classifieds, Jobs, Obituary, Updates, Breaking News</p></td></tr></table>`,
		with:    []string{"Paragraph A", "Paragraph C"},
		without: []string{"Printer friendly", "Send this article", "Sections: ePaper", "Advts:"},
	}, {
		// A photograph's copyright between the story's paragraphs is not its end:
		// prose follows it.
		name: "copyright credit between paragraphs",
		html: `<article>` + textArticle(2) + `<p>© 2008 Reuters</p>` + textPara(2) + `</article>`,
		with: []string{"Paragraph A", "© 2008 Reuters", "Paragraph C"},
	}, {
		// news.com.au: after the story's paragraphs, in its block, a box of other
		// stories, each a linked headline in an <h4> and its standfirst; a note of the
		// site follows them. The text ends where the other stories begin.
		name: "other stories after the article",
		html: `<div class="story">` + textArticle(5) + `<p>` + textTeaserLong + `</p><div class="story-extras"><div class="group-header">More technology news</div>` +
			textFeedItems(3, "<div class=\"item\"><div class=\"story-block\"><h4 class=\"heading\"><a href=\"/tech/%\">NASA to text space station alerts, part %</a></h4><p class=\"standfirst\">Galactic tourism may still be a daydream for most of us, but not for long, part %.</p></div></div>") +
			`</div><p>Came straight to this page? Visit the site for all the latest news and reviews.</p></div>`,
		with:    []string{"Paragraph A", "Paragraph E", "the hall was full"},
		without: []string{"NASA to text", "Galactic tourism", "Came straight"},
	}, {
		// cbc.ca: the region's headlines after the story, a <dl> of linked headlines
		// and their teasers, with a sentence of prose after each.
		name: "headlines and teasers after the story's last paragraph",
		html: `<div id="storybody">` + textArticle(5) + `<p>` + textTeaserLong + `</p><div class="lineuproll"><h3><a href="/nl/">More headlines</a></h3><dl>` +
			textFeedItems(3, "<dt class=\"headline\"><a href=\"/nl/story/%\">Officer charged with drunk driving, story %</a></dt><dd>The constabulary has suspended one of its own, after an off-duty officer was charged, story %.</dd>") + `</dl></div></div>`,
		with:    []string{"Paragraph A", "Paragraph E", "the hall was full"},
		without: []string{"More headlines", "Officer charged", "constabulary"},
	}, {
		// sify.com (ANI's stories): after the story and the agency's notice, a table
		// of the section's other stories, each row a linked headline and its teaser.
		name: "table of other stories after the story",
		html: `<div class="story">` + textArticle(5) + `<p>` + textTeaserLong + `</p><p>© 2007 ANI</p><table><tr><td><a href="/news/">More</a></td></tr>` +
			textFeedItems(3, "<tr><td class=\"sectionarticle\"><a href=\"/news/%\">Army Day reception, story %</a> New Delhi, Jan 15 (ANI): the army marked its day, story %.</td></tr>") + `</table></div>`,
		with:    []string{"Paragraph A", "Paragraph E", "the hall was full"},
		without: []string{"Army Day", "New Delhi"},
	}, {
		// A list of linked stories with the article's prose after it is the article's
		// ("Read more" between its paragraphs); so are footnotes, whose links lead
		// within the page, and a guide's venues, each a linked name and a review longer
		// than the guide's introduction.
		name: "article's own lists of links",
		html: `<div class="story">` + textArticle(5) + `<p>` + textTeaserLong + `</p><div class="read">` +
			textFeedItems(3, "<p><a href=\"/read/%\">Earlier: the council's vote on the bridge, part %</a> The first plans for the bridge, what they would have cost and why the council turned them down.</p>") + `</div>` + textPara(6) + `<div class="notes">` +
			textFeedItems(3, "<p><a href=\"#fn%\">Footnote %</a> The council's minutes of the meeting, page %.</p>") + `</div></div>`,
		with: []string{"Paragraph A", "Earlier: the council's vote", "Paragraph G", "Footnote 3"},
	}, {
		name: "guide's venues after its introduction",
		html: `<div class="guide">` + textArticle(5) + `<p>` + textTeaserLong + `</p><div class="venues">` +
			textFeedItems(4, "<article class=\"venue\"><h3><a href=\"/venue/%\">Venue %</a></h3><p>"+strings.Repeat("The chef of venue % serves a tasting menu of the season, with a wine list of note. ", 4)+"</p></article>") + `</div></div>`,
		with: []string{"Paragraph A", "Venue 1", "Venue 4", "The chef of venue 4"},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			page, err := HTML(htmlTestURL, nil, []byte("<!DOCTYPE html><html><head><title>"+tt.title+"</title></head><body>"+tt.html+"</body></html>"), HTMLOptions{WithText: true})
			if err != nil {
				t.Fatal(err)
			}
			for _, s := range tt.with {
				if !strings.Contains(page.Text, s) {
					t.Errorf("text lacks %q; text:\n%s", s, page.Text)
				}
			}
			for _, s := range tt.without {
				if strings.Contains(page.Text, s) {
					t.Errorf("text holds %q; text:\n%s", s, page.Text)
				}
			}
		})
	}
}
