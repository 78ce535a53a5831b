// FerryWireTests
