package lang

// iso6393 maps the ISO 639-1 codes Detect returns to ISO 639-3, the codes Common
// Crawl writes in WARC-Identified-Content-Language ("eng", "deu", "zho"): macrolanguages
// by their macrolanguage code (Chinese "zho", Malay "msa", Persian "fas", Norwegian
// "nor"), as CLD2's languages map to them.
var iso6393 = map[string]string{
	"af": "afr", "am": "amh", "ar": "ara", "az": "aze", "be": "bel", "bg": "bul",
	"bn": "ben", "bo": "bod", "br": "bre", "bs": "bos", "ca": "cat", "co": "cos",
	"cs": "ces", "cy": "cym", "da": "dan", "de": "deu", "dv": "div", "el": "ell",
	"en": "eng", "eo": "epo", "es": "spa", "et": "est", "eu": "eus", "fa": "fas",
	"fi": "fin", "fo": "fao", "fr": "fra", "fy": "fry", "ga": "gle", "gd": "gla",
	"gl": "glg", "gu": "guj", "ha": "hau", "he": "heb", "hi": "hin", "hr": "hrv",
	"ht": "hat", "hu": "hun", "hy": "hye", "ia": "ina", "id": "ind", "ig": "ibo",
	"is": "isl", "it": "ita", "ja": "jpn", "jv": "jav", "ka": "kat", "kk": "kaz",
	"km": "khm", "kn": "kan", "ko": "kor", "ku": "kur", "ky": "kir", "la": "lat",
	"lb": "ltz", "lo": "lao", "lt": "lit", "lv": "lav", "mg": "mlg", "mi": "mri",
	"mk": "mkd", "ml": "mal", "mn": "mon", "mr": "mar", "ms": "msa", "mt": "mlt",
	"my": "mya", "ne": "nep", "nl": "nld", "nn": "nno", "no": "nor", "ny": "nya",
	"oc": "oci", "or": "ori", "pa": "pan", "pl": "pol", "ps": "pus", "pt": "por",
	"ro": "ron", "ru": "rus", "rw": "kin", "si": "sin", "sk": "slk", "sl": "slv",
	"sm": "smo", "sn": "sna", "so": "som", "sq": "sqi", "sr": "srp", "st": "sot",
	"su": "sun", "sv": "swe", "sw": "swa", "ta": "tam", "te": "tel", "tg": "tgk",
	"th": "tha", "tk": "tuk", "tl": "tgl", "tn": "tsn", "tr": "tur", "tt": "tat",
	"ug": "uig", "uk": "ukr", "ur": "urd", "uz": "uzb", "vi": "vie", "xh": "xho",
	"yo": "yor", "zh": "zho", "zu": "zul",
}

// ISO6393 returns the ISO 639-3 code of r's language ("deu" for "de"), "" for the zero
// Result.
func (r Result) ISO6393() string {
	return iso6393[r.Code]
}
