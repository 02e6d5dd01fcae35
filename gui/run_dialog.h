// "Run simulations": a workload file, a GPU and policies; the simulation runs in a worker thread with a progress
// bar and a Cancel button, each policy's run is stored in the open store, and errors (a bad file, a locked or
// foreign database) are shown with the reader's message. The window stays responsive throughout.
#pragma once
#include <QCheckBox>
#include <QComboBox>
#include <QDialog>
#include <QDialogButtonBox>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QProgressBar>
#include <QPushButton>
#include <QSpinBox>
#include <QThread>
#include <atomic>
#include <memory>

#include "gui/model/sim_job.h"

namespace gpusched::gui {

class RunDialog : public QDialog {
  Q_OBJECT
 public:
  RunDialog(const QString& db_path, QWidget* parent = nullptr);
  ~RunDialog() override;

  void setWorkloadFile(const QString& path);
  void setGpu(const QString& gpu);  // "" for the workload's own
  void setPolicies(const QStringList& policies);
  void setShowErrorDialogs(bool show) { show_error_dialogs_ = show; }  // tests read lastError() instead
  SimJobRequest request() const;
  bool running() const { return thread_ != nullptr; }
  QString lastError() const { return last_error_; }
  QProgressBar* progressBar() const { return progress_; }

 public Q_SLOTS:
  void start();
  void cancel();

 Q_SIGNALS:
  void runsStored(const QList<qint64>& ids);
  void jobFinished(bool ok, const QString& message);

 private:
  void browseWorkload();
  void finish(bool ok, const QString& message, const QList<qint64>& ids);
  void setRunning(bool running);

  QString db_path_;
  QLineEdit* workload_;
  QComboBox* gpu_;
  QListWidget* policies_;
  QComboBox* interference_;
  QSpinBox* seed_;
  QCheckBox* keep_blocks_;
  QProgressBar* progress_;
  QLabel* status_;
  QPushButton *run_, *cancel_, *close_;
  QThread* thread_ = nullptr;
  std::shared_ptr<std::atomic<bool>> cancelled_;
  QString last_error_;
  bool show_error_dialogs_ = true;
};

}  // namespace gpusched::gui
