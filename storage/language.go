package storage

// Language is a language detected in a page's main text.
type Language struct {
	Code       string  `json:"code"`       // ISO 639-1, such as "de"
	Script     string  `json:"script"`     // ISO 15924, such as "Latn", "Hans" or "Jpan"
	Confidence float64 `json:"confidence"` // from 0 to 1
}
