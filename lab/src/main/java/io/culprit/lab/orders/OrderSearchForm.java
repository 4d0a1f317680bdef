package io.culprit.lab.orders;

/** The search form: what the search really uses. */
public class OrderSearchForm {

    private String status = "PAID";
    private int page;
    private int size = 20;

    public String getStatus() {
        return status;
    }

    public void setStatus(String status) {
        this.status = status;
    }

    public int getPage() {
        return page;
    }

    public void setPage(int page) {
        this.page = page;
    }

    public int getSize() {
        return size;
    }

    public void setSize(int size) {
        this.size = Math.max(1, Math.min(size, 100));
    }
}
