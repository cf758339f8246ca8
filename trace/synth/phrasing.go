package synth

import (
	"math/rand/v2"
	"strconv"
	"strings"
)

// Word lists the conversations are filled from.
var (
	firstNames = []string{"Dana", "Lucas", "Priya", "Marco", "Aisha", "Tom", "Sofia", "Kenji", "Emma", "Omar",
		"Chloé", "Jakob", "Maya", "Noah", "Lena", "Raj", "Grace", "Mateo", "Hannah", "Yusuf"}
	lastNames = []string{"Kim", "Martin", "Sharma", "Rossi", "Bello", "Walsh", "García", "Tanaka", "Dubois", "Haddad",
		"Schmidt", "Nguyen", "O'Brien", "Kowalski", "Silva", "Patel", "Jensen", "Moreau", "Fischer", "Clarke"}
	mailDomains = []string{"gmail.com", "outlook.com", "yahoo.com", "proton.me", "icloud.com", "hotmail.co.uk", "web.de"}
	products    = []string{"wireless earbuds", "running shoes", "a rain jacket", "a yoga mat", "a coffee grinder",
		"noise-cancelling headphones", "a hiking backpack", "a phone case", "a desk lamp", "merino socks",
		"a water bottle", "a mechanical keyboard", "a winter coat", "a cast iron pan", "kids' sneakers"}
	outOfScope = []string{
		"what's the weather going to be like in {city} this weekend?",
		"can you help me write a cover letter?",
		"who won the game last night?",
		"what's 15% of 240?",
		"can you recommend a good restaurant near {city}?",
		"do you know any good jokes?",
		"translate 'thank you very much' into Japanese please",
	}
	greetings = []string{"hi", "hello there", "hey, anyone there?", "Hi! Quick question", "good morning",
		"hello, I need some help please", "hey"}
	thanks = []string{"thanks, that's all!", "great, thank you so much", "ok thanks", "perfect, cheers",
		"thank you, have a nice day", "awesome thx", "got it, thanks for your help"}
	policyQuestions = []struct{ q, a string }{
		{"what's your return policy?", "You can return most items within 30 days of delivery for a full refund, as long as they're unused and in their original packaging."},
		{"how long does standard shipping take?", "Standard shipping usually takes 3–5 business days; express shipping takes 1–2 business days."},
		{"do you ship internationally?", "Yes, we ship to the US, the UK and most of the EU. Duties are included at checkout for EU and UK orders."},
		{"can I pay with PayPal?", "Yes, we accept PayPal as well as all major credit cards and Apple Pay."},
		{"how do I reset my password?", "Click \"Forgot password\" on the sign-in page and we'll email you a reset link; it's valid for one hour."},
	}
)

// region is where a customer lives: it decides carriers, cities and currency.
type region struct {
	code     string
	currency string
	carriers []string
	cities   []address
}

type address struct{ street, city, postal, country string }

var regions = []region{
	{"us", "$", []string{"ups", "fedex", "usps"}, []address{
		{"742 Evergreen Terrace", "Springfield", "62704", "US"}, {"1600 Market St", "Philadelphia", "19103", "US"},
		{"88 Pine Street", "Seattle", "98101", "US"}, {"415 Congress Ave", "Austin", "78701", "US"},
		{"12 Beacon St", "Boston", "02108", "US"}}},
	{"uk", "£", []string{"royal_mail", "dhl"}, []address{
		{"221B Baker Street", "London", "NW1 6XE", "GB"}, {"14 Queen Street", "Edinburgh", "EH2 1JE", "GB"},
		{"3 Deansgate", "Manchester", "M3 2BW", "GB"}, {"27 Park Row", "Leeds", "LS1 5HD", "GB"}}},
	{"eu", "€", []string{"dhl", "ups"}, []address{
		{"12 Rue de la République", "Lyon", "69002", "FR"}, {"Kastanienallee 7", "Berlin", "10435", "DE"},
		{"Prinsengracht 263", "Amsterdam", "1016 GV", "NL"}, {"Calle de Alcalá 45", "Madrid", "28014", "ES"},
		{"Via Roma 18", "Torino", "10123", "IT"}}},
}

func pick[T any](r *rand.Rand, xs []T) T { return xs[r.IntN(len(xs))] }

// slots are the values a phrasing template may name in braces.
type slots struct {
	order, order2, email, amount, tracking, carrier, product, city, street, postal, country, name, n string
}

// fill replaces {slot} names in tmpl with their values.
func fill(tmpl string, s *slots) string {
	if strings.IndexByte(tmpl, '{') < 0 {
		return tmpl
	}
	var b strings.Builder
	b.Grow(len(tmpl) + 32)
	for {
		i := strings.IndexByte(tmpl, '{')
		if i < 0 {
			b.WriteString(tmpl)
			return b.String()
		}
		j := strings.IndexByte(tmpl[i:], '}')
		if j < 0 {
			b.WriteString(tmpl)
			return b.String()
		}
		b.WriteString(tmpl[:i])
		b.WriteString(s.value(tmpl[i+1 : i+j]))
		tmpl = tmpl[i+j+1:]
	}
}

func (s *slots) value(name string) string {
	switch name {
	case "order":
		return s.order
	case "order2":
		return s.order2
	case "email":
		return s.email
	case "amount":
		return s.amount
	case "tracking":
		return s.tracking
	case "carrier":
		return s.carrier
	case "product":
		return s.product
	case "city":
		return s.city
	case "street":
		return s.street
	case "postal":
		return s.postal
	case "country":
		return s.country
	case "name":
		return s.name
	case "n":
		return s.n
	}
	return "{" + name + "}"
}

// casual lowercases the first letter or drops the final punctuation now and
// then, the way people type into a chat box.
func casual(r *rand.Rand, s string) string {
	switch r.IntN(6) {
	case 0:
		return strings.ToLower(s[:1]) + s[1:]
	case 1:
		return strings.TrimRight(s, ".?!")
	}
	return s
}

func digits(r *rand.Rand, n int) string {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte('0' + r.IntN(10))
	}
	return string(b)
}

const alnum = "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"

func trackingNumber(r *rand.Rand, carrier string) string {
	switch carrier {
	case "ups":
		b := []byte("1Z")
		for range 16 {
			b = append(b, alnum[r.IntN(len(alnum))])
		}
		return string(b)
	case "fedex":
		return digits(r, 12)
	case "usps":
		return "9400" + digits(r, 18)
	case "royal_mail":
		return string([]byte{alnum[r.IntN(26)], alnum[r.IntN(26)]}) + digits(r, 9) + "GB"
	}
	return digits(r, 10)
}

func carrierLabel(c string) string {
	switch c {
	case "ups":
		return "UPS"
	case "fedex":
		return "FedEx"
	case "usps":
		return "USPS"
	case "royal_mail":
		return "Royal Mail"
	case "dhl":
		return "DHL"
	}
	return c
}

// money formats cents in a region's currency, e.g. "$49.90".
func money(currency string, cents int) string {
	return currency + strconv.Itoa(cents/100) + "." + string([]byte{byte('0' + cents%100/10), byte('0' + cents%10)})
}
