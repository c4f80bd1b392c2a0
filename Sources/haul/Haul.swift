/// The command line's entry: picks the command, answers `--help` and `--version`, reports
/// usage errors, and runs the command.
enum Haul {
  static func main(_ arguments: [String]) async -> ExitCode {
    guard let first = arguments.first else {
      Console.error(HelpText.overview(Commands.all))
      return .usage
    }
    switch first {
    case "-h", "--help":
      Console.output(HelpText.overview(Commands.all))
      return .ok
    case "--version", "version":
      Console.output(Version.text)
      return .ok
    case "--generate-man":
      // Hidden: writes haul.1 for `make install`.
      guard arguments.count == 1 else { return fail(UsageError("--generate-man takes nothing")) }
      Console.output(ManPage.roff(Commands.all))
      return .ok
    case "--generate-completion":
      // Hidden: writes a completion script for `make install`.
      guard arguments.count == 2, let shell = ShellCompletion.Shell(rawValue: arguments[1]) else {
        let shells = ShellCompletion.Shell.allCases.map(\.rawValue).joined(separator: " or ")
        return fail(UsageError("--generate-completion needs \(shells)"))
      }
      Console.output(ShellCompletion.script(for: shell, Commands.all))
      return .ok
    case "help":
      guard arguments.count > 1 else {
        Console.output(HelpText.overview(Commands.all))
        return .ok
      }
      guard let command = Commands.named(arguments[1]), arguments.count == 2 else {
        return fail(UsageError("no help for '\(arguments.dropFirst().joined(separator: " "))'"))
      }
      Console.output(HelpText.command(command))
      return .ok
    default:
      break
    }
    guard let command = Commands.named(first) else {
      let what = first.hasPrefix("-") ? "unknown option '\(first)'" : "unknown command '\(first)'"
      return fail(UsageError(what))
    }
    do throws(UsageError) {
      let parsed = try ParsedArguments.parse(Array(arguments.dropFirst()), for: command)
      if parsed.has(Commands.help.long) {
        Console.output(HelpText.command(command))
        return .ok
      }
      switch command.name {
      case Commands.run.name:
        return await RunCommand(options: try RunOptions(parsed)).execute()
      case Commands.verify.name:
        return try VerifyCommand(parsed).execute()
      case Commands.bench.name:
        return await BenchCommand(options: try BenchOptions(parsed)).execute()
      case Commands.serve.name:
        return await ServeCommand(parsed: parsed).execute()
      case Commands.page.name:
        return PageCommand(parsed: parsed).execute()
      case _ where Commands.serviceCommands.contains(where: { $0.name == command.name }):
        return await ClientCommand(name: command.name, parsed: parsed).execute()
      default:
        throw UsageError("'\(command.name)' is not yet available")
      }
    } catch {
      return fail(error)
    }
  }

  private static func fail(_ error: UsageError) -> ExitCode {
    Console.error(error.text + "\n")
    return .usage
  }
}
