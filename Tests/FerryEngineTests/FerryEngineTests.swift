// FerryEngineTests
