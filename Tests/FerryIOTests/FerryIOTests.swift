// FerryIOTests
