package dcpi

// FromTachyon lets the external fuzz test reach fromTachyon.
var FromTachyon = fromTachyon
