// The main window: run browser on the left; on the right a run's timeline with its legend, the policy
// comparison of the current workload (or distributions over every filtered run), two stacked timelines, and the
// store's validations (predictions against their executions on a GPU).
// File menu: open a store (dialog, command line, recent files), run simulations, export the current view as
// PNG or SVG. The window's layout is remembered (QSettings).
#pragma once
#include <QLabel>
#include <QMainWindow>
#include <QRadioButton>
#include <QSplitter>
#include <QTabWidget>
#include <map>
#include <memory>
#include <optional>

#include "core/store/store.h"
#include "gui/compare_timelines.h"
#include "gui/comparison_view.h"
#include "gui/launch_legend.h"
#include "gui/run_browser.h"
#include "gui/timeline_widget.h"
#include "gui/validation_view.h"

namespace gpusched::gui {

class MainWindow : public QMainWindow {
  Q_OBJECT
 public:
  explicit MainWindow(QWidget* parent = nullptr);
  ~MainWindow() override;

  // Opens a store read-only; on failure shows the reader's message (unless `quiet`) and returns false with the
  // message in lastError(). Creates the store when `create` and the file does not exist.
  bool openStore(const QString& path, bool create = false);
  QString storePath() const { return store_path_; }
  QString lastError() const { return last_error_; }
  void setShowErrorDialogs(bool show) { show_error_dialogs_ = show; }
  // Reads the run list again (after a run dialog or another process wrote to the store).
  void reload();
  // Loads a run's timeline synchronously (the browser's current run loads in the background).
  bool showRun(std::int64_t id);
  // Saves the current tab as PNG (by pixels) or SVG (by drawing commands), by the file's extension.
  bool exportView(const QString& path);

  RunBrowser* browser() const { return browser_; }
  TimelineWidget* timeline() const { return timeline_; }
  LaunchLegend* legend() const { return legend_; }
  ComparisonView* comparison() const { return comparison_; }
  CompareTimelines* compareTimelines() const { return compare_; }
  ValidationView* validation() const { return validation_; }
  QTabWidget* tabs() const { return tabs_; }
  std::int64_t shownRun() const { return shown_run_; }
  QStringList recentFiles() const;

 Q_SIGNALS:
  void runShown(qint64 id);

 protected:
  void closeEvent(QCloseEvent*) override;
  void showEvent(QShowEvent*) override;

 private:
  void buildMenus();
  void openDialog();
  void newStoreDialog();
  void runDialog();
  void exportDialog();
  void updateRecentMenu();
  void addRecent(const QString& path);
  void showRunAsync(std::int64_t id);
  void setTimeline(std::int64_t id, std::shared_ptr<const TimelineModel> model, const QString& title);
  void updateComparison();
  void error(const QString& title, const QString& message);
  std::shared_ptr<const TimelineModel> loadModel(std::int64_t id);
  void remember(std::int64_t id, std::shared_ptr<const TimelineModel> model);  // in the cache of recent runs

  std::optional<store::Store> store_;
  QString store_path_, last_error_;
  bool show_error_dialogs_ = true;
  std::int64_t shown_run_ = -1;
  int load_generation_ = 0;
  std::map<std::int64_t, std::shared_ptr<const TimelineModel>> cache_;  // a few recently shown runs
  std::map<std::int64_t, std::int64_t> predicted_by_;                   // live run -> its predicted run

  QSplitter* splitter_;
  QSplitter* timeline_splitter_;
  RunBrowser* browser_;
  QTabWidget* tabs_;
  TimelineWidget* timeline_;
  LaunchLegend* legend_;
  ComparisonView* comparison_;
  QRadioButton *compare_group_, *compare_all_;
  CompareTimelines* compare_;
  ValidationView* validation_;
  QLabel* status_;
  QMenu* recent_menu_ = nullptr;
  bool first_layout_ = false;  // no remembered layout: size the splitters when first shown
};

}  // namespace gpusched::gui
