/// How one round of a transfer in parts ended, as the attempt machine hears it: each case
/// is one of its events in the `split` state (`AttemptMachine`).
enum PartsRound {
  /// The transfer cannot go in parts (`splitDeclined`).
  case declined
  /// It ended short of a check (`splitEnded`): an upload's parts, or a round that failed.
  case ended(Result<AttemptSuccess, AttemptFailure>)
  /// A part's answer was no part of the version fetched, for this reason
  /// (`splitRestart`); the partial file is gone.
  case restart(String)
  /// Every part arrived (`partsReceived`): the file waits for its check.
  case received(ReceivedParts)
}
