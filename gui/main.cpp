// gpusched-gui [DB]: browse stored runs, their SM timelines and policy comparisons; run simulations.
#include <QApplication>
#include <QCommandLineParser>

#include "gui/main_window.h"
#include "sim/run_identity.h"

int main(int argc, char** argv) {
  QApplication app(argc, argv);
  QApplication::setOrganizationName(QStringLiteral("gpusched"));
  QApplication::setApplicationName(QStringLiteral("gpusched-gui"));
  QApplication::setApplicationVersion(QString::fromLatin1(gpusched::sim::gpusched_version()));
  QCommandLineParser parser;
  parser.setApplicationDescription(QStringLiteral("gpusched: SM occupancy timelines and policy comparisons"));
  parser.addHelpOption();
  parser.addVersionOption();
  parser.addPositionalArgument(QStringLiteral("DB"), QStringLiteral("a result store written by gpusched --db"));
  QCommandLineOption run_option(QStringLiteral("run"), QStringLiteral("show this run's timeline"),
                                QStringLiteral("ID"));
  parser.addOption(run_option);
  parser.process(app);

  gpusched::gui::MainWindow window;
  window.show();
  const auto args = parser.positionalArguments();
  if (!args.isEmpty() && window.openStore(args.front()) && parser.isSet(run_option))
    window.browser()->selectRun(parser.value(run_option).toLongLong());
  return QApplication::exec();
}
