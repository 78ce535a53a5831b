// FerrySessionTests
