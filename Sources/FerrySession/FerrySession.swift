// FerrySession: the URLSession-like layer over FerryEngine. See ARCHITECTURE.md.
