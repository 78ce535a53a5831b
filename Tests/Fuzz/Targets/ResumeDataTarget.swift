import FerrySession
import FoundationEssentials

extension FuzzTarget {
    /// Resume data handed back by a caller (outside input: it may have been stored anywhere):
    /// decoded and made into the task it continues, or refused with a reason. Nothing is
    /// opened: the partial file is only opened when such a task starts.
    static let resumeData = FuzzTarget(
        name: "resume-data",
        summary: "DownloadTask resume data (versioned JSON: URL, header fields, validator, offsets, partial file)"
    ) { input in
        FuzzEntryPoints.resumeData(Data(input))
    }
}
