import Dispatch
import HaulCore
import Synchronization

/// `ScriptedTransport` carried as an engine (`EngineTransport`): a run hands it jobs, and it
/// drives them on its own thread (one serial queue) as `CurlTransport` drives them on its
/// loop, so the scheduler's engine path is tested without curl. Each exchange ends 2 ms after
/// it starts, so exchanges overlap and the run's limits are exercised; `perform` (the task
/// path) answers from the same script.
///
/// Threading: jobs and their exchanges are touched only on `queue`; the counts are behind a
/// lock.
// unchecked: the jobs and exchanges are touched only on `queue`, the counts under a lock.
public final class ScriptedEngine: ScriptedTransport, @unchecked Sendable {
  private let queue = DispatchQueue(label: "haul.scripted-engine")
  /// The exchanges in flight on the queue, by a number of their own.
  private var inFlight: [Int: (job: any TransportJob, request: TransferRequest)] = [:]
  private var nextExchange = 0
  private let begun = Mutex(0)

  /// How many jobs the engine began: the entries whose first attempt it carried.
  public var jobsBegun: Int { begun.withLock { $0 } }

  /// Carries out a job's step on the queue: starts the exchange it asks for, if any.
  private func step(_ job: any TransportJob, _ next: JobStep) {
    guard case .send(let request, let sink) = next else { return }
    let number = began(request)
    let exchange = nextExchange
    nextExchange += 1
    inFlight[exchange] = (job, request)
    queue.asyncAfter(deadline: .now() + .milliseconds(2)) { [self] in
      guard inFlight.removeValue(forKey: exchange) != nil else { return }
      let result: Result<TransferResponse, TransferError>
      do throws(TransferError) {
        result = .success(try answer(request, number: number, into: sink))
      } catch {
        result = .failure(error)
      }
      ended(request)
      step(job, job.exchangeEnded(result))
    }
  }
}

extension ScriptedEngine: EngineTransport {
  package func start(_ jobs: [any TransportJob]) {
    begun.withLock { $0 += jobs.count }
    queue.async { [self] in
      for job in jobs { step(job, job.begin()) }
    }
  }

  package func cancelJobs() {
    queue.async { [self] in
      let cancelled = inFlight
      inFlight = [:]
      for (_, exchange) in cancelled.sorted(by: { $0.key < $1.key }) {
        ended(exchange.request)
        step(
          exchange.job,
          exchange.job.exchangeEnded(
            .failure(TransferError(.cancelled, "the transfer was cancelled"))))
      }
    }
  }
}
